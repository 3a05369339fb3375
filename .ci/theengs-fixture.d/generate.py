"""What Theengs Gateway and OpenMQTTGateway publish for real advertisements, made by their own code.

Reads every LE Advertising Report of a btsnoop capture (H4) plus a few made-up adverts (iBeacons
whose major or minor is above 32767, AltBeacon, Eddystone UID/URL/TLM, a phone's resolvable
private address), and writes one JSON line per advert:

  {"source": …, "expect": <the BeaconPresence id its bytes carry, or null>, "address": …,
   "theengs": [{"topic": …, "payload": …}, …], "openmqttgateway": [{"topic": …, "payload": …}]}

- "theengs": what Theengs Gateway itself (PyPI TheengsGateway, its `Gateway.detection_callback`
  with the default configuration of TheengsGateway/config.py, `discovery` on) publishes on its
  `publish_topic`: the advert is handed to it as bleak's `AdvertisementData`, as BlueZ would, and
  its `publish` is replaced by a recorder (no broker). Home Assistant discovery configs are left out.
- "openmqttgateway": what OpenMQTTGateway publishes with its defaults, by TheengsDecoder (the
  library OpenMQTTGateway compiles in) on the JSON its `procBLETask` builds (main/ZgatewayBT.cpp:
  `id`, `mac_type`, `adv_type`, `name`, `manufacturerdata`, `rssi`, `txpower`, then one message
  per service data with `servicedata` and `servicedatauuid` as NimBLE prints it, `0xfeaa`), then
  `PublishDeviceData`'s defaults: `type` RMAC (or `prmac`) not published (`randommacs` false), the
  advertising data and `mac_type`, `adv_type`, `cidc`, `acts`, `cont`, `track`, `ctrl` removed
  (`pubadvdata` false), topic `home/OpenMQTTGateway/BTtoMQTT/<address without colons>`.
  The firmware cannot run here: this half is its decoder on its input, its publishing rules
  re-stated.

An empty list means the gateway published nothing for that advert. Each report of the capture is
one advertisement on its own (BlueZ would merge a scan response into the device's properties).

  python generate.py CAPTURE OUTPUT
"""
import json
import struct
import sys

from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData
from TheengsDecoder import decodeBLE
from TheengsGateway.config import DEFAULT_CONFIG
from TheengsGateway.discovery import DiscoveryGateway


def reports(path):
    """(record number, event type, address, address type, AD bytes, rssi) of each LE Advertising Report."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"btsnoop\0", "not a btsnoop file"
    offset, record = 16, 0
    while offset + 24 <= len(data):
        _, included, _, _, _ = struct.unpack(">IIIIq", data[offset : offset + 24])
        packet = data[offset + 24 : offset + 24 + included]
        offset += 24 + included
        record += 1
        # H4 event, LE Meta (0x3e), LE Advertising Report (0x02).
        if len(packet) < 4 or packet[0] != 0x04 or packet[1] != 0x3E or packet[3] != 0x02:
            continue
        count, body = packet[4], packet[5:]
        # Each field is an array over the reports (Core spec Vol 4 Part E 7.7.65.2).
        types = body[0:count]
        address_types = body[count : 2 * count]
        addresses = [body[2 * count + 6 * i : 2 * count + 6 * i + 6] for i in range(count)]
        at = 8 * count
        lengths = body[at : at + count]
        at += count
        ads = []
        for length in lengths:
            ads.append(bytes(body[at : at + length]))
            at += length
        rssis = body[at : at + count]
        for i in range(count):
            address = ":".join(f"{b:02X}" for b in reversed(addresses[i]))
            rssi = rssis[i] - 256 if rssis[i] > 127 else rssis[i]
            yield record, types[i], address, address_types[i], ads[i], rssi


def structures(ad):
    """The advert's AD structures as bleak reports them."""
    name, manufacturer, service, uuids, tx_power = None, {}, {}, [], None
    at = 0
    while at < len(ad):
        length = ad[at]
        if length == 0 or at + 1 + length > len(ad):
            break
        kind, value = ad[at + 1], ad[at + 2 : at + 1 + length]
        at += 1 + length
        if kind in (0x08, 0x09):
            name = value.decode("utf-8", "replace")
        elif kind == 0xFF and len(value) >= 2:
            manufacturer.setdefault(value[0] | value[1] << 8, value[2:])
        elif kind == 0x16 and len(value) >= 2:
            service[f"0000{value[1]:02x}{value[0]:02x}-0000-1000-8000-00805f9b34fb"] = value[2:]
        elif kind in (0x02, 0x03):
            for i in range(0, len(value) - 1, 2):
                uuids.append(f"0000{value[i + 1]:02x}{value[i]:02x}-0000-1000-8000-00805f9b34fb")
        elif kind == 0x0A and len(value) == 1:
            tx_power = value[0] - 256 if value[0] > 127 else value[0]
    return name, manufacturer, service, uuids, tx_power


def expected(ad):
    """The id of ours the advert's bytes carry, read here from the bytes, not from any gateway."""
    _, manufacturer, service, _, _ = structures(ad)
    apple = manufacturer.get(0x004C, b"")
    if len(apple) == 23 and apple[:2] == b"\x02\x15":
        uuid = apple[2:18].hex()
        major, minor = struct.unpack(">HH", apple[18:22])
        return f"ibeacon-{uuid[:8]}-{uuid[8:12]}-{uuid[12:16]}-{uuid[16:20]}-{uuid[20:]}-{major}-{minor}"
    for value in manufacturer.values():
        if len(value) == 24 and value[:2] == b"\xbe\xac":
            return "altbeacon-" + value[2:22].hex()
    eddystone = service.get("0000feaa-0000-1000-8000-00805f9b34fb", b"")
    if len(eddystone) >= 18 and eddystone[0] == 0x00:
        return f"eddystone-{eddystone[2:12].hex()}-{eddystone[12:18].hex()}"
    return None


class Recorder(DiscoveryGateway):
    """Theengs Gateway as it runs by default, its MQTT client replaced by a list."""

    def __init__(self):
        configuration = dict(DEFAULT_CONFIG)
        configuration["gateway_id"] = "00:00:00:00:00:00"  # set from the host's MAC in TheengsGateway/__init__.py
        super().__init__(configuration)
        self.published = []

    def publish(self, msg, pub_topic=None, retain=False):
        self.published.append((pub_topic or self.configuration["publish_topic"], msg))


def theengs(address, rssi, ad):
    name, manufacturer, service, uuids, tx_power = structures(ad)
    gateway = Recorder()
    advert = AdvertisementData(
        local_name=name, manufacturer_data=manufacturer, service_data=service, service_uuids=uuids,
        tx_power=tx_power, rssi=rssi, platform_data=())
    gateway.detection_callback(BLEDevice(address, name, None), advert)
    prefix = gateway.configuration["publish_topic"] + "/"
    return [{"topic": t, "payload": m} for t, m in gateway.published if t.startswith(prefix)]


OMG_REMOVED = ("servicedatauuid", "servicedata", "manufacturerdata", "mac_type", "adv_type", "cidc", "acts", "cont", "track", "ctrl")


def openmqttgateway(address, address_type, event_type, rssi, ad):
    name, manufacturer, service, _, tx_power = structures(ad)
    base = {"id": address, "mac_type": address_type, "adv_type": event_type}
    if name is not None:
        base["name"] = name
    # NimBLE's getManufacturerData: the first manufacturer data structure, company id and all.
    at = 0
    while at < len(ad) and ad[at]:
        if ad[at + 1] == 0xFF:
            base["manufacturerdata"] = ad[at + 2 : at + 1 + ad[at]].hex()
            break
        at += 1 + ad[at]
    base["rssi"] = rssi
    if tx_power is not None:
        base["txpower"] = tx_power
    inputs = []
    if service:
        for uuid, data in service.items():
            one = dict(base)
            one["servicedata"] = data.hex()
            one["servicedatauuid"] = "0x" + uuid[4:8]
            inputs.append(one)
    else:
        inputs.append(base)
    out = []
    for one in inputs:
        decoded = decodeBLE(json.dumps(one, separators=(",", ":")))
        message = json.loads(decoded) if decoded else one
        if message.pop("prmac", None):
            message.pop("track", None)
            message["type"] = "RMAC"
        if message.get("type") == "RMAC":
            continue
        for key in OMG_REMOVED:
            message.pop(key, None)
        out.append({"topic": "home/OpenMQTTGateway/BTtoMQTT/" + address.replace(":", ""),
                    "payload": json.dumps(message, separators=(",", ":"))})
    return out


def ad(*structs):
    out = b""
    for kind, value in structs:
        out += bytes([len(value) + 1, kind]) + value
    return out


FLAGS = (0x01, b"\x06")
UUID = bytes.fromhex("fda50693a4e24fb1afcfc6eb07647825")


def ibeacon(major, minor, power=0xC5):
    return ad(FLAGS, (0xFF, b"\x4c\x00\x02\x15" + UUID + struct.pack(">HHB", major, minor, power)))


MADE_UP = [
    # (source, address, address type, event type, rssi, AD bytes)
    ("iBeacon major 32767 minor 32768", "C4:A1:B2:C3:D4:E5", 0, 0, -61, ibeacon(32767, 32768)),
    ("iBeacon major 32768 minor 62207", "C4:A1:B2:C3:D4:E5", 0, 0, -62, ibeacon(32768, 62207)),
    ("iBeacon major 65535 minor 65535", "C4:A1:B2:C3:D4:E5", 0, 0, -63, ibeacon(65535, 65535)),
    ("iBeacon major 0 minor 0", "C4:A1:B2:C3:D4:E5", 0, 0, -64, ibeacon(0, 0)),
    ("iBeacon measured power byte 0x3c (above 0: the decoder reads a voltage)", "C4:A1:B2:C3:D4:E5", 0, 0, -65, ibeacon(5, 6, 0x3C)),
    ("iBeacon with a TX Power Level structure (+4 dBm)", "C4:A1:B2:C3:D4:E5", 0, 0, -66,
     ibeacon(5, 40000) + ad((0x0A, b"\x04"))),
    ("AltBeacon (Radius Networks, company 0x0118)", "D0:11:22:33:44:55", 1, 0, -70,
     ad(FLAGS, (0xFF, b"\x18\x01\xbe\xac" + UUID + struct.pack(">HH", 1, 50000) + b"\xc5\x00"))),
    ("Eddystone-UID", "D0:11:22:33:44:56", 1, 3, -71,
     ad(FLAGS, (0x03, b"\xaa\xfe"), (0x16, b"\xaa\xfe\x00\xe8" + bytes.fromhex("edd1ebeac04e5defa017") + bytes.fromhex("0badc0ffee01") + b"\x00\x00"))),
    ("Eddystone-URL", "D0:11:22:33:44:57", 1, 3, -72,
     ad(FLAGS, (0x03, b"\xaa\xfe"), (0x16, b"\xaa\xfe\x10\xee\x03theengs\x07"))),
    ("Eddystone-TLM", "D0:11:22:33:44:58", 1, 3, -73,
     ad(FLAGS, (0x03, b"\xaa\xfe"), (0x16, b"\xaa\xfe\x20\x00\x0b\xb8\x19\x00\x00\x00\x00\x0a\x00\x00\x00\x64"))),
    # The Core spec's sample resolvable private address (Vol 3 Part H, D.7: prand 708194, hash
    # 0dfbaa of IRK ec0234a357c8ad05341010a60a397d9b): an iPhone's Nearby Info, an Android phone's
    # Fast Pair service data, and one that says only its name.
    ("phone, resolvable private address: Apple Nearby Info", "70:81:94:0D:FB:AA", 1, 0, -60,
     ad(FLAGS, (0xFF, bytes.fromhex("4c001005031c0ee2a1")))),
    ("phone, resolvable private address: Google Fast Pair service data", "70:81:94:0D:FB:AA", 1, 0, -60,
     ad(FLAGS, (0x16, bytes.fromhex("2cfe") + bytes.fromhex("00112233")))),
    ("phone, resolvable private address: name only", "70:81:94:0D:FB:AA", 1, 0, -60,
     ad(FLAGS, (0x09, b"Pixel 8"))),
]


def main(capture, output):
    lines = []
    seen = set()
    for record, event_type, address, address_type, data, rssi in reports(capture):
        # Every beacon report; of the others one line per distinct advert (the capture repeats them).
        key = (address, data)
        if key in seen and expected(data) is None:
            continue
        seen.add(key)
        lines.append((f"capture record {record}", address, address_type, event_type, rssi, data))
    lines += MADE_UP
    with open(output, "w") as out:
        for source, address, address_type, event_type, rssi, data in lines:
            line = {
                "source": source, "expect": expected(data), "address": address, "ad": data.hex(),
                "theengs": theengs(address, rssi, data),
                "openmqttgateway": openmqttgateway(address, address_type, event_type, rssi, data),
            }
            out.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
