"""Feed Home Assistant's own mqtt_room sensor (the installed homeassistant package) a recording.

Usage: ha_mqtt_room.py TRACE  -> decisions CSV (time,beacon,room) on stdout, one row per room change.
Each advert becomes one MQTT message on room_presence/<room> with {"id": beacon, "distance": d},
d from the AltBeacon curve at -59 dBm (as the yardstick feeds its re-implementation); the sensor's
clock (dt_util.utcnow) is the advert's time. No broker: the sensor's subscribe call is captured.
"""
import asyncio, csv, json, sys
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
import homeassistant.components.mqtt_room.sensor as sensor

def altbeacon_distance(rssi, power=-59.0):
    ratio = rssi / power
    return ratio ** 10 if ratio < 1 else 0.89976 * ratio ** 7.7095 + 0.111

EPOCH = datetime(2020, 1, 1, tzinfo=timezone.utc)
now = [EPOCH]
sensor.dt_util.utcnow = lambda: now[0]

async def main(path):
    rows = list(csv.DictReader(open(path)))
    beacons = sorted({r["beacon"] for r in rows})
    callbacks, states, out = {}, {}, []
    for b in beacons:
        ent = sensor.MQTTRoomSensor("s", "room_presence", b, 5, 0, None)
        async def subscribe(hass, topic, cb, qos, b=b):
            callbacks[b] = cb
        sensor.mqtt.async_subscribe = subscribe
        def write(ent=ent, b=b):
            if states.get(b) != ent.native_value:
                states[b] = ent.native_value
                out.append((t, b, ent.native_value))
        ent.async_write_ha_state = write
        await ent.async_added_to_hass()
    for r in rows:
        t = float(r["time"])
        now[0] = EPOCH + timedelta(seconds=t)
        msg = SimpleNamespace(topic="room_presence/" + r["room"],
                              payload=json.dumps({"id": r["beacon"], "distance": altbeacon_distance(float(r["rssi"]))}))
        for cb in callbacks.values():
            cb(msg)
    w = csv.writer(sys.stdout)
    w.writerow(["time", "beacon", "room"])
    for t_, b, room in out:
        w.writerow([f"{t_:.3f}", b, room])

asyncio.run(main(sys.argv[1]))
