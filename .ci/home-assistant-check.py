"""The Home Assistant check's body, run by .ci/home-assistant with Home Assistant's own Python (its
virtual environment has aiohttp and paho-mqtt). It is given a running private mosquitto and the
demo's configuration (environment below), starts the demo's aggregator and agents and a headless
Home Assistant with etc/home-assistant/beaconpresence.yaml as a package, and checks through Home
Assistant's REST and websocket APIs what a Home Assistant user relies on. Each check prints one
line, `pass` or `FAIL`, with its figures; the last line is `N passed, N failed`.

Environment: HA_WORK (a directory for everything it writes), HA_PORT_MQTT (the broker's port),
HA_NODES ("kitchen-1:kitchen …"), HA_AGGREGATOR_CMD and HA_AGENT_CMD_<node> (files with one
argument per line), HA_PACKAGE (the package file), HA_DOCS (the article that must show it).
"""

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone

import aiohttp
import paho.mqtt.client as mqtt

WORK = os.environ["HA_WORK"]
MQTT_PORT = int(os.environ["HA_PORT_MQTT"])
NODES = [tuple(node.split(":")) for node in os.environ["HA_NODES"].split()]
PEOPLE = ["alice", "bob", "carol"]
ROOMS = sorted(room for _, room in NODES)
# The demo's floors (.ci/demo-site.sh, `floors:` of the aggregator's configuration).
FLOORS = {"kitchen": "ground", "living": "ground", "bedroom": "upstairs", "office": "upstairs"}
PACKAGE = os.environ["HA_PACKAGE"]
DOCS = os.environ["HA_DOCS"]

results = []  # (name, passed, detail)
figures = {}


def check(name, passed, detail=""):
    results.append((name, bool(passed), detail))
    print(f"{'pass' if passed else 'FAIL'}  {name}{': ' + detail if detail else ''}", flush=True)
    return passed


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Processes:
    """The programs the check starts, by name; each stopped with SIGTERM (and waited for)."""

    def __init__(self):
        self.running = {}

    def start(self, name, argv, **kwargs):
        log = open(os.path.join(WORK, f"{name}.log"), "ab")
        self.running[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, **kwargs)

    def stop(self, name, timeout=20):
        process = self.running.pop(name, None)
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop_all(self):
        for name in list(self.running):
            self.stop(name)


def command(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


class Broker:
    """Watches the site's topics: the aggregator's rooms, and counts of messages per topic."""

    def __init__(self):
        self.rooms = {}
        self.counts = {}
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="ha-check-observer")
        self.client.on_message = self.on_message
        self.client.connect("127.0.0.1", MQTT_PORT)
        self.client.subscribe("presence/#", qos=1)
        self.lock = threading.Lock()
        self.client.loop_start()

    def on_message(self, client, userdata, message):
        with self.lock:
            self.counts[message.topic] = self.counts.get(message.topic, 0) + 1
            match = re.fullmatch(r"presence/locations/([^/]+)/room", message.topic)
            if match:
                self.rooms[match.group(1)] = message.payload.decode()

    def room(self, person):
        with self.lock:
            return self.rooms.get(person)

    def count(self, topic):
        with self.lock:
            return self.counts.get(topic, 0)

    def publish(self, topic, payload, retain=False):
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


class HomeAssistant:
    def __init__(self, session, port):
        self.session = session
        self.base = f"http://127.0.0.1:{port}"
        self.token = None

    @property
    def headers(self):
        return {"Authorization": f"Bearer {self.token}"}

    async def wait_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.token is None:
                    async with self.session.get(f"{self.base}/api/onboarding") as response:
                        if response.status == 200:
                            return True
                else:
                    async with self.session.get(f"{self.base}/api/config", headers=self.headers) as response:
                        if response.status == 200 and (await response.json()).get("state") == "RUNNING":
                            return True
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(1)
        return False

    async def onboard(self):
        client_id = f"{self.base}/"
        user = {"client_id": client_id, "name": "Check", "username": "check", "password": "check-password-1",
                "language": "en"}
        async with self.session.post(f"{self.base}/api/onboarding/users", json=user) as response:
            response.raise_for_status()
            code = (await response.json())["auth_code"]
        form = {"grant_type": "authorization_code", "code": code, "client_id": client_id}
        async with self.session.post(f"{self.base}/auth/token", data=form) as response:
            response.raise_for_status()
            tokens = await response.json()
            self.token = tokens["access_token"]
            self.refresh_token = tokens["refresh_token"]
        # The rest of onboarding, as the frontend's wizard would: otherwise every page is the wizard.
        for step, body in (("core_config", {}), ("analytics", {}),
                           ("integration", {"client_id": client_id, "redirect_uri": client_id})):
            async with self.session.post(f"{self.base}/api/onboarding/{step}", headers=self.headers, json=body) as response:
                response.raise_for_status()

    async def add_mqtt(self):
        async with self.session.post(f"{self.base}/api/config/config_entries/flow", headers=self.headers,
                                     json={"handler": "mqtt", "show_advanced_options": False}) as response:
            response.raise_for_status()
            flow = await response.json()
        async with self.session.post(f"{self.base}/api/config/config_entries/flow/{flow['flow_id']}",
                                     headers=self.headers, json={"broker": "127.0.0.1", "port": MQTT_PORT}) as response:
            response.raise_for_status()
            return await response.json()

    async def states(self):
        async with self.session.get(f"{self.base}/api/states", headers=self.headers) as response:
            response.raise_for_status()
            return {state["entity_id"]: state for state in await response.json()}

    async def state(self, entity_id):
        async with self.session.get(f"{self.base}/api/states/{entity_id}", headers=self.headers) as response:
            if response.status == 404:
                return None
            response.raise_for_status()
            return await response.json()

    async def history(self, entity_id, start, end):
        url = (f"{self.base}/api/history/period/{start.isoformat()}?filter_entity_id={entity_id}"
               f"&end_time={end.isoformat()}&significant_changes_only=0")
        async with self.session.get(url.replace("+", "%2B"), headers=self.headers) as response:
            response.raise_for_status()
            rows = await response.json()
            return rows[0] if rows else []

    async def ws_command(self, message):
        """One websocket command on a connection of its own (an idle one is closed by Home Assistant)."""
        async with self.session.ws_connect(f"{self.base}/api/websocket") as ws:
            await ws.receive_json()  # auth_required
            await ws.send_json({"type": "auth", "access_token": self.token})
            answer = await ws.receive_json()
            assert answer["type"] == "auth_ok", answer
            await ws.send_json({"id": 1, **message})
            while True:
                answer = await ws.receive_json()
                if answer.get("id") == 1:
                    return answer.get("result")

    async def wait_for(self, entity_id, predicate, timeout, step=0.1):
        """Polls the entity until `predicate(state)` holds; returns (state, seconds) or (last, None)."""
        started = time.monotonic()
        last = None
        while time.monotonic() - started < timeout:
            last = await self.state(entity_id)
            if last is not None and predicate(last):
                return last, time.monotonic() - started
            await asyncio.sleep(step)
        return last, None


def value(state):
    return None if state is None else state["state"]


def write_configuration(config, http_port):
    os.makedirs(os.path.join(config, "packages"), exist_ok=True)
    with open(PACKAGE) as source, open(os.path.join(config, "packages", "beaconpresence.yaml"), "w") as target:
        target.write(source.read())
    with open(os.path.join(config, "configuration.yaml"), "w") as f:
        f.write(f"""homeassistant:
  name: BeaconPresence check
  latitude: 52.52
  longitude: 13.40
  elevation: 34
  unit_system: metric
  time_zone: UTC
  country: DE
  currency: EUR
  packages: !include_dir_named packages
http:
  server_host: 127.0.0.1
  server_port: {http_port}
api:
config:
frontend:
onboarding:
history:
logbook:
recorder:
  commit_interval: 1
logger:
  default: warning
""")


# Four fake agents beside the demo's (whose simulated radios advertise nothing), in the demo's
# rooms: their retained info names their node beacons, and they publish what they hear of each
# other's once a second, as agents do, so the aggregator calibrates them. What each reads above the
# site's mean (centred); bedroom-2 and kitchen-2 hear only each other: one path, not confident.
CALIBRATING_OFFSETS = {"kitchen-2": 3.0, "living-2": -1.0, "office-2": -2.0, "bedroom-2": 0.0}
CALIBRATING_PATHS = [("kitchen-2", "living-2"), ("kitchen-2", "office-2"), ("living-2", "office-2"), ("bedroom-2", "kitchen-2")]


async def calibrating_nodes(broker):
    nodes = sorted(CALIBRATING_OFFSETS)
    beacon = {node: f"ibeacon-6da7a204-168f-4087-a761-28738dae7c07-99-{index + 1}" for index, node in enumerate(nodes)}
    for node in nodes:
        info = {"node": node, "room": node.split("-")[0], "version": "check",
                "nodeBeacon": {"id": beacon[node], "interval": 1, "state": "advertising", "measuredPower": -41}}
        broker.publish(f"presence/nodes/{node}/info", json.dumps(info), retain=True)
    while True:
        for a, b in CALIBRATING_PATHS:
            for transmitter, receiver in ((a, b), (b, a)):
                level = CALIBRATING_OFFSETS[receiver] - 70 - 2 * (nodes.index(a) + nodes.index(b))
                broker.client.publish(f"presence/beacons/{beacon[transmitter]}/{receiver}", json.dumps({
                    "id": beacon[transmitter], "beacon": beacon[transmitter], "node": receiver,
                    "room": receiver.split("-")[0], "rssi": round(level), "rssiFiltered": level, "sigma": 1.0,
                    "measuredPower": -41, "distance": 5.0, "proximity": "far"}), qos=0)
        await asyncio.sleep(1)


async def run():
    processes = Processes()
    broker = Broker()
    http_port = free_port()
    config = os.path.join(WORK, "ha-config")
    write_configuration(config, http_port)
    venv_bin = os.path.dirname(sys.executable)
    try:
        async with aiohttp.ClientSession() as session:
            ha = HomeAssistant(session, http_port)
            # The site first, as a user's would be running; Home Assistant joins it.
            processes.start("aggregator", command(os.environ["HA_AGGREGATOR_CMD"]))
            await asyncio.sleep(1)
            for node, _ in NODES:
                processes.start(node, command(os.environ[f"HA_AGENT_CMD_{node.replace('-', '_')}"]))
            started = time.monotonic()
            calibrating = asyncio.create_task(calibrating_nodes(broker))
            processes.start("hass", [os.path.join(venv_bin, "hass"), "-c", config, "--skip-pip"])
            if not check("Home Assistant starts", await ha.wait_up(300), f"{time.monotonic() - started:.0f} s"):
                return
            figures["hass start"] = time.monotonic() - started
            await ha.onboard()
            entry = await ha.add_mqtt()
            check("MQTT integration added through the config-entry flow", entry.get("type") == "create_entry",
                  entry.get("title", json.dumps(entry)[:200]))
            subscribed = time.monotonic()
            state, seconds = await ha.wait_for("device_tracker.carol", lambda s: s["state"] in ("home", "not_home"), 60, 0.2)
            check("discovered trackers appear", seconds is not None, f"{time.monotonic() - subscribed:.1f} s after MQTT was added")
            # YAML that needs MQTT (mqtt_room, MQTT triggers) is set up at start only: a restart, as
            # a user's Home Assistant has MQTT configured when it starts. The log of the first start
            # (its complaints that MQTT is missing) goes to home-assistant.log.1.
            processes.stop("hass")
            started = time.monotonic()
            processes.start("hass", [os.path.join(venv_bin, "hass"), "-c", config, "--skip-pip"])
            if not check("Home Assistant restarts with MQTT", await ha.wait_up(300), f"{time.monotonic() - started:.0f} s"):
                return
            await ha.wait_for("binary_sensor.beaconpresence_aggregator_connectivity", lambda s: s["state"] == "on", 60, 0.5)

            # Discovery: every person's entities, rooms the aggregator decided.
            # Region events need Home Assistant listening: the regions are pushed now.
            broker.publish("presence/config/regions",
                           json.dumps({"revision": 1, "regions": [{"id": "office", "uuid": "fda50693-a4e2-4fb1-afcf-c6eb07647825"}]}),
                           retain=True)
            await asyncio.sleep(5)
            states = await ha.states()
            for person in PEOPLE:
                room = broker.room(person)
                tracker = states.get(f"device_tracker.{person}")
                expected = "not_home" if room in (None, "not_home") else "home"
                check(f"device_tracker.{person} is {expected} (aggregator: {room})",
                      value(tracker) == expected and tracker["attributes"].get("room") == room
                      and tracker["attributes"].get("source_type") == "bluetooth_le",
                      f"state {value(tracker)}, attributes {tracker and tracker['attributes']}")
                sensor, _ = await ha.wait_for(f"sensor.{person}_room", lambda s: s["state"] == broker.room(person), 10, 0.5)
                check(f"sensor.{person}_room shows the aggregator's room", value(sensor) == broker.room(person),
                      f"{value(sensor)} vs {broker.room(person)}")
            options = states.get("sensor.alice_room", {}).get("attributes", {}).get("options")
            check("room sensor is an enum with every room and not_home",
                  states.get("sensor.alice_room", {}).get("attributes", {}).get("device_class") == "enum"
                  and options == ROOMS + ["not_home"], f"options {options}")
            for person in PEOPLE:
                expected = FLOORS.get(broker.room(person), "not_home")
                floor, _ = await ha.wait_for(f"sensor.{person}_floor",
                                             lambda s: s["state"] == FLOORS.get(broker.room(person), "not_home"), 10, 0.5)
                check(f"sensor.{person}_floor shows the floor of the aggregator's room", value(floor) == expected,
                      f"{value(floor)} vs {expected} ({broker.room(person)})")
            floor_options = states.get("sensor.alice_floor", {}).get("attributes", {}).get("options")
            check("floor sensor is an enum with every floor and not_home",
                  states.get("sensor.alice_floor", {}).get("attributes", {}).get("device_class") == "enum"
                  and floor_options == sorted(set(FLOORS.values())) + ["not_home"], f"options {floor_options}")
            distance = states.get("sensor.alice_distance")
            check("distance sensor in metres", distance is not None and distance["attributes"].get("unit_of_measurement") == "m"
                  and re.fullmatch(r"[0-9.]+", distance["state"]) is not None, f"{value(distance)} m")
            for person in PEOPLE:
                tracker_state = value(states.get(f"device_tracker.{person}"))
                person_state = value(states.get(f"person.{person}"))
                check(f"person.{person} follows its tracker", person_state == tracker_state, f"{person_state}")
            home = sum(value(states.get(f"person.{person}")) == "home" for person in PEOPLE)
            check("zone.home counts the people at home", value(states.get("zone.home")) == str(home),
                  f"zone.home {value(states.get('zone.home'))}, people home {home}")

            # Devices: the aggregator, each node via it, each beacon.
            devices = await ha.ws_command({"type": "config/device_registry/list"})
            by_name = {device["name"]: device for device in devices}
            aggregator = by_name.get("BeaconPresence aggregator")
            check("the aggregator is a device", aggregator is not None, aggregator and aggregator["model"])
            nodes_via = [name for name in (f"Node {node}" for node, _ in NODES)
                         if aggregator and by_name.get(name, {}).get("via_device_id") == aggregator["id"]]
            check("every node is a device via the aggregator", len(nodes_via) == len(NODES), ", ".join(nodes_via))
            check("every beacon is a device", all(name in by_name for name in ("Alice", "Bob", "Carol")))
            areas = sorted({by_name.get(f"Node {node}", {}).get("area_id") or "-" for node, _ in NODES})
            figures["node areas"] = areas

            # Telemetry sensors: the first telemetry comes 30 s after an agent starts.
            telemetry, _ = await ha.wait_for("sensor.node_kitchen_1_adverts_per_second",
                                             lambda s: re.fullmatch(r"[0-9.]+", s["state"]) is not None, 60, 1)
            beacons = await ha.state("sensor.node_kitchen_1_beacons")
            radio = await ha.state("sensor.node_kitchen_1_radio")
            check("node telemetry as diagnostic sensors (adverts/s, beacons; radio unknown without one)",
                  value(telemetry) not in (None, "unknown", "unavailable") and value(beacons) == "3"
                  and value(radio) == "unknown",
                  f"adverts/s {value(telemetry)}, beacons {value(beacons)}, radio {value(radio)}")
            connectivity = await ha.state("binary_sensor.node_kitchen_1_connectivity")
            check("node connectivity on", value(connectivity) == "on", value(connectivity))

            # Each node's RSSI offset, once the aggregator's calibration names the node: the fake
            # nodes (`calibrating_nodes`, running since the start) have been heard long enough.
            offset, seconds = await ha.wait_for("sensor.node_kitchen_2_rssi_offset",
                                                lambda s: s["state"] not in ("unknown", "unavailable"), 150, 1)
            entry = await ha.ws_command({"type": "config/entity_registry/get", "entity_id": "sensor.node_kitchen_2_rssi_offset"})
            attributes = offset["attributes"] if offset else {}
            check("node RSSI offset: a diagnostic sensor in dB, the calibration's offset, its confidence as attributes",
                  offset is not None and abs(float(value(offset)) - CALIBRATING_OFFSETS["kitchen-2"]) < 0.3
                  and attributes.get("unit_of_measurement") == "dB" and attributes.get("confident") is True
                  and isinstance(attributes.get("standardError"), (int, float)) and attributes.get("pairs") == 3
                  and entry and entry.get("entity_category") == "diagnostic",
                  f"{value(offset)} dB ({seconds and round(seconds)} s after the check looked), {attributes}, "
                  f"{entry and entry.get('entity_category')}")
            single = await ha.state("sensor.node_bedroom_2_rssi_offset")
            demo = await ha.state("sensor.node_kitchen_1_rssi_offset")
            check("node RSSI offset of a node with one path: not confident, with its reason; none for a node never calibrated",
                  single is not None and single["attributes"].get("confident") is False
                  and "path" in single["attributes"].get("reason", "") and demo is None,
                  f"bedroom-2 {value(single)} {single and single['attributes']}, kitchen-1 {value(demo)}")
            calibrating.cancel()

            if os.environ.get("HA_SCREENSHOTS"):
                await pictures(ha, os.environ["HA_SCREENSHOTS"], [
                    ("ha-device-alice", f"/config/devices/device/{by_name['Alice']['id']}"),
                    ("ha-device-node", f"/config/devices/device/{by_name['Node kitchen-1']['id']}"),
                    ("ha-device-aggregator", f"/config/devices/device/{aggregator['id']}")])

            # mqtt_room as the docs configure it: the node nearest in the latest measurements.
            mqtt_room, _ = await ha.wait_for("sensor.alice_mqtt_room", lambda s: s["state"] in dict(NODES), 30, 1)
            check("mqtt_room sensor follows the measurements", value(mqtt_room) in dict(NODES),
                  f"{value(mqtt_room)}, distance {mqtt_room and mqtt_room['attributes'].get('distance')}")

            # Region enter events reached the automation.
            region = await ha.state("automation.a_beacon_enters_the_office_region")
            check("automation on a region `enter` event fired",
                  region is not None and region["attributes"].get("last_triggered") is not None,
                  f"last_triggered {region and region['attributes'].get('last_triggered')}")

            # Tracker states while people move between rooms: one per room change, not per measurement.
            window_start = datetime.now(timezone.utc)
            counts_before = {person: broker.count(f"presence/locations/{person}") for person in PEOPLE}
            rooms_before = {person: broker.count(f"presence/locations/{person}/room") for person in PEOPLE}
            notifications_before = await ha.state("automation.alice_changes_room")
            window = 180
            await asyncio.sleep(window)
            window_end = datetime.now(timezone.utc)
            per_minute = []
            for person in PEOPLE:
                rows = await ha.history(f"device_tracker.{person}", window_start, window_end)
                stored = max(0, len(rows) - 1)  # the first row is the state at the window's start
                locations = broker.count(f"presence/locations/{person}") - counts_before[person]
                room_changes = broker.count(f"presence/locations/{person}/room") - rooms_before[person]
                per_minute.append((person, stored * 60 / window, locations * 60 / window, room_changes * 60 / window))
                check(f"device_tracker.{person}: a state per room change, not per location message",
                      stored <= room_changes + 1,
                      f"{stored} tracker states, {room_changes} room changes, {locations} location messages in {window} s")
            figures["per minute (tracker states, location messages, room changes)"] = per_minute
            room_automation = await ha.state("automation.alice_changes_room")
            notification = [n for n in await ha.ws_command({"type": "persistent_notification/get"})
                            if n["notification_id"] == "alice_room"]
            alice_room = broker.room("alice")
            check("room automation on the enum room sensor fires", room_automation is not None
                  and room_automation["attributes"].get("last_triggered") is not None
                  and (alice_room == "not_home" or (notification and notification[0]["message"] == f"Alice is in the {alice_room}")),
                  f"last_triggered {room_automation and room_automation['attributes'].get('last_triggered')}, "
                  f"notification {notification and notification[0]['message']}")

            # A node stops: its connectivity goes off at once (its clean `offline`), its telemetry
            # unavailable; the alert fires after its 30 s.
            stopped = time.monotonic()
            processes.stop("kitchen-1")
            _, off = await ha.wait_for("binary_sensor.node_kitchen_1_connectivity", lambda s: s["state"] == "off", 30)
            off = None if off is None else time.monotonic() - stopped  # from the SIGTERM on
            figures["node connectivity off after stop (s)"] = off
            check("node connectivity off within seconds of the node stopping", off is not None and off < 5,
                  f"{off:.2f} s" if off is not None else "never")
            telemetry = await ha.state("sensor.node_kitchen_1_adverts_per_second")
            check("node telemetry unavailable while the node is offline", value(telemetry) == "unavailable", value(telemetry))
            alert, alerted = await ha.wait_for("automation.a_presence_node_is_offline",
                                               lambda s: s["attributes"].get("last_triggered") is not None, 60, 1)
            notification = [n for n in await ha.ws_command({"type": "persistent_notification/get"})
                            if n["notification_id"] == "presence_node_offline"]
            check("node-offline alert fires after 30 s", alerted is not None and notification,
                  f"{time.monotonic() - stopped:.0f} s after the stop: {notification and notification[0]['message']}")
            processes.start("kitchen-1", command(os.environ["HA_AGENT_CMD_kitchen_1"]))
            _, on = await ha.wait_for("binary_sensor.node_kitchen_1_connectivity", lambda s: s["state"] == "on", 30)
            check("node connectivity on again after a restart", on is not None, f"{on:.2f} s" if on is not None else "never")

            # The aggregator stops: its entities go unavailable, and come back when it restarts.
            entities = ["device_tracker.alice", "sensor.alice_room", "sensor.alice_distance"]
            stopped = time.monotonic()
            processes.stop("aggregator")
            times = []
            for entity in entities:
                _, seconds = await ha.wait_for(entity, lambda s: s["state"] == "unavailable", 30, 0.05)
                times.append(None if seconds is None else time.monotonic() - stopped)
            figures["unavailable after aggregator stop (s)"] = times
            check("entities unavailable when the aggregator stops", all(t is not None for t in times),
                  ", ".join(f"{t:.2f} s" if t is not None else "never" for t in times))
            aggregator_connectivity = await ha.state("binary_sensor.beaconpresence_aggregator_connectivity")
            check("aggregator connectivity off", value(aggregator_connectivity) == "off", value(aggregator_connectivity))
            started = time.monotonic()
            processes.start("aggregator", command(os.environ["HA_AGGREGATOR_CMD"]))
            back = []
            for entity in entities:
                state, seconds = await ha.wait_for(entity, lambda s: s["state"] not in ("unavailable", "unknown"), 60, 0.1)
                back.append((entity, value(state), None if seconds is None else time.monotonic() - started))
            figures["available after aggregator restart (s)"] = [b[2] for b in back]
            left = await ha.state("automation.everyone_has_left")
            check("an aggregator restart is no departure (everyone-left automation did not fire)",
                  left is not None and left["attributes"].get("last_triggered") is None,
                  f"last_triggered {left and left['attributes'].get('last_triggered')}")
            check("entities come back when the aggregator restarts (restored, not sent away)",
                  all(b[2] is not None for b in back) and back[0][1] == "home",
                  ", ".join(f"{b[0]} {b[1]} {b[2]:.1f} s" if b[2] is not None else f"{b[0]} never" for b in back))

            # Everyone leaves: all nodes stop, the aggregator sends everyone to not_home. First the
            # restarted aggregator decides afresh from the nodes (settle time 3 s): a restored
            # location never confirmed waits the evidence's whole life (150 s) before it goes.
            await asyncio.sleep(10)
            for node, _ in NODES:
                processes.stop(node)
            stopped = time.monotonic()
            away = []
            for person in PEOPLE:
                tracker, _ = await ha.wait_for(f"device_tracker.{person}", lambda s: s["state"] == "not_home", 200, 0.5)
                away.append(time.monotonic() - stopped if value(tracker) == "not_home" else None)
            figures["not_home after every node stopped (s)"] = away
            check("device_trackers not_home when the aggregator says not_home",
                  all(a is not None for a in away) and all(broker.room(p) == "not_home" for p in PEOPLE),
                  ", ".join(f"{p} {a:.1f} s" if a is not None else f"{p} never" for p, a in zip(PEOPLE, away)))
            await asyncio.sleep(2)
            states = await ha.states()
            check("person away and zone.home 0 when everyone is not_home",
                  all(value(states.get(f"person.{p}")) == "not_home" for p in PEOPLE) and value(states.get("zone.home")) == "0",
                  f"persons {[value(states.get(f'person.{p}')) for p in PEOPLE]}, zone.home {value(states.get('zone.home'))}")
            check("room sensor shows not_home", value(states.get("sensor.alice_room")) == "not_home", value(states.get("sensor.alice_room")))
            left = states.get("automation.everyone_has_left")
            check("zone.home automation (everyone has left) fired",
                  left is not None and left["attributes"].get("last_triggered") is not None,
                  f"last_triggered {left and left['attributes'].get('last_triggered')}")

    finally:
        processes.stop_all()
        broker.close()

    # Home Assistant's log, both starts: nothing about the project's payloads. The first start
    # complains, as it should, that the YAML needing MQTT came before MQTT was added.
    log = ""
    for name in ("home-assistant.log.1", "home-assistant.log"):
        with open(os.path.join(config, name), errors="replace") as f:
            log += f.read()
    entries = re.findall(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) (.*)$", log, re.MULTILINE)
    before_mqtt = r"MQTT integration is not available|make sure MQTT is set up correctly"
    ours = [line for level, line in entries
            if re.search(r"mqtt|presence|beaconpresence|device_tracker|sensor|template|automation|person|zone", line, re.I)
            and not re.search(before_mqtt, line)]
    others = [line for level, line in entries if line not in ours]
    check("Home Assistant logs no warning or error about the project's payloads", not ours,
          "; ".join(line[:300] for line in ours[:5]))
    if others:
        print(f"# other warnings in Home Assistant's log ({len(others)}):", flush=True)
        for line in others[:10]:
            print(f"#   {line[:200]}", flush=True)

    # The docs show exactly the package checked here.
    with open(PACKAGE) as f:
        package = f.read()
    with open(DOCS) as f:
        docs = f.read()
    body = package.split("\n\n", 1)[1]  # the file's own header comment aside
    check("the docs show the checked package as it is", body.strip() in docs)


async def screenshots(ha, folder, devices):
    """Headless Chromium pictures of device pages, driven over the DevTools protocol: the check's
    tokens are put where the frontend keeps them (localStorage `hassTokens`), then each page is
    opened and captured."""
    import base64
    import shutil
    browser = shutil.which("chromium")
    if browser is None:
        print("# no chromium: no screenshots", flush=True)
        return
    os.makedirs(folder, exist_ok=True)
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--remote-debugging-port={port}",
        f"--user-data-dir={os.path.join(WORK, 'chromium')}", "--window-size=1000,700", "about:blank",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    try:
        targets = None
        for _ in range(100):
            try:
                async with ha.session.get(f"http://127.0.0.1:{port}/json") as response:
                    targets = [t for t in await response.json() if t["type"] == "page"]
                    if targets:
                        break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.3)
        async with ha.session.ws_connect(targets[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            ids = iter(range(1, 10_000))

            async def call(method, **params):
                number = next(ids)
                await ws.send_json({"id": number, "method": method, "params": params})
                while True:
                    answer = await ws.receive_json()
                    if answer.get("id") == number:
                        return answer.get("result", {})

            await call("Emulation.setDeviceMetricsOverride", width=1000, height=700, deviceScaleFactor=1, mobile=False)
            await call("Page.navigate", url=f"{ha.base}/onboarding.html")
            await asyncio.sleep(3)
            tokens = {"access_token": ha.token, "token_type": "Bearer", "expires_in": 1800,
                      "refresh_token": ha.refresh_token, "hassUrl": ha.base, "clientId": f"{ha.base}/",
                      "expires": int(time.time() * 1000) + 1_700_000}
            await call("Runtime.evaluate", expression=f"localStorage.setItem('hassTokens', {json.dumps(json.dumps(tokens))})")
            for name, path in devices:
                await call("Page.navigate", url=f"{ha.base}{path}")
                await asyncio.sleep(12)
                shot = await call("Page.captureScreenshot", format="png")
                target = os.path.join(folder, f"{name}.png")
                with open(target, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                # A few dozen colours keep a page at about 30 KB for the docs.
                from PIL import Image
                Image.open(target).convert("RGB").quantize(colors=48, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
                print(f"# screenshot {target}", flush=True)
    finally:
        process.terminate()
        await process.wait()


async def pictures(ha, folder, devices):
    """Screenshots are for the docs, not a check: a browser that fails is noted, not fatal."""
    try:
        await asyncio.wait_for(screenshots(ha, folder, devices), 180)
    except Exception as error:
        print(f"# screenshots failed: {type(error).__name__}: {error}", flush=True)


def main():
    started = time.monotonic()
    try:
        asyncio.run(run())
    except Exception as error:  # a crash of the check itself is a failure, named
        check("the check ran to its end", False, f"{type(error).__name__}: {error}")
    for name, number in figures.items():
        print(f"# {name}: {number}", flush=True)
    print(f"# the check took {time.monotonic() - started:.0f} s", flush=True)
    passed = sum(1 for _, ok, _ in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed", flush=True)
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
