#!/bin/sh
# /init of the VM that .ci/kernel-bluetooth boots: Debian's own kernel with bluetooth + hci_vhci,
# BlueZ's emulated controllers (btvirt), the agent and the aggregator. Prints "PASS: …" or "FAIL: …" per check
# and "GUEST-DONE passed=N failed=N" at the end, then powers off. Busybox sh.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /tmp /run
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
for module in $(cat /modules.order); do insmod "/modules/$module.ko" || echo "cannot load $module"; done
ip link set lo up
hostname vm
cd /tmp

passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
show() { sed 's/^/    | /' "$1" | tail -n "${2:-15}"; }
# expect NAME FILE PATTERN: the file has a line matching the pattern (grep -E).
expect() {
    if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1: no /$3/ in $2"; show "$2"; fi
}
# refute NAME FILE PATTERN
refute() {
    if grep -Eq -- "$3" "$2"; then fail "$1: /$3/ in $2"; show "$2"; else pass "$1"; fi
}
# until_true SECONDS COMMAND…: polls once a second.
until_true() {
    t=$1
    shift
    while [ "$t" -gt 0 ]; do
        "$@" && return 0
        sleep 1
        t=$((t - 1))
    done
    return 1
}
count() {
    n=$(grep -c -- "$2" "$1" 2>/dev/null)
    echo "${n:-0}"
}
more_than() { [ "$(count "$1" "$2")" -gt "$3" ]; }

BEACON=ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207
# btvirt with the preload that gives its reports an RSSI (it sends 127, "not available").
start_btvirt() {
    LD_PRELOAD=/lib/rssi.so BT_RSSI=-60 btvirt "$@" >>/tmp/btvirt.log 2>&1 &
    BTVIRT=$!
}
# The same without the preload: every report with RSSI 127, "not available", as btvirt sends it.
start_btvirt_without_rssi() {
    btvirt "$@" >>/tmp/btvirt.log 2>&1 &
    BTVIRT=$!
}
stop_btvirt() {
    [ -n "$ADVERTISER" ] && kill "$ADVERTISER" 2>/dev/null
    ADVERTISER=
    kill "$BTVIRT" 2>/dev/null
    wait "$BTVIRT" 2>/dev/null
    until_true 10 sh -c '! ls /sys/class/bluetooth/ 2>/dev/null | grep -q hci'
}
# advertise hciN: an iBeacon (the shared capture's uuid, major 20594, minor 62207), non-connectable.
# btvirt sends a report only when advertising is (re-)enabled, so it is toggled twice a second.
advertise() {
    hciconfig "$1" up
    hcitool -i "$1" cmd 0x08 0x0006 A0 00 A0 00 03 00 00 00 00 00 00 00 00 07 00 >/dev/null
    hcitool -i "$1" cmd 0x08 0x0008 1E 02 01 06 1A FF 4C 00 02 15 49 4E 54 45 4C 4C 49 5F 52 4F 43 4B 53 5F 48 57 50 72 F2 FF C2 00 >/dev/null
    (while :; do
        hcitool -i "$1" cmd 0x08 0x000a 01 >/dev/null 2>&1
        sleep 0.5
        hcitool -i "$1" cmd 0x08 0x000a 00 >/dev/null 2>&1
    done) &
    ADVERTISER=$!
}
# util-linux's setpriv (busybox's cannot change the user); by path, as busybox sh prefers its applets.
# bridge LINK SERVER: a pty at /tmp/LINK joined to btvirt's unix socket /tmp/bt-server-SERVER
# (tried again when btvirt refuses the connection, as it sometimes does right after a client left).
bridge() {
    for attempt in 1 2 3 4 5; do
        socat PTY,link=/tmp/$1,raw,echo=0 UNIX-CONNECT:/tmp/bt-server-$2 2>>/tmp/socat.log &
        SOCAT=$!
        until_true 3 test -e /tmp/$1 && return 0
        kill $SOCAT 2>/dev/null
        sleep 1
    done
    return 1
}
agent_as_user() { /usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }
# node_beacon LOG NODE: the node beacon id NODE's info names (its last info in LOG).
node_beacon() {
    grep "presence/nodes/$2/info " "$1" | tail -n 1 | grep -o '"nodeBeacon":{"id":"[^"]*"' | sed 's/.*"id":"//; s/"$//'
}
# run_node NODE ROOM SOURCE: an agent publishing to the VM's broker, its log in /tmp/agent-NODE.log.
run_node() {
    presence-agent run --config "${NODE_CONFIG:-/tmp/agent.yaml}" --node "$1" --room "$2" --source "$3" --broker mqtt://127.0.0.1:1883 \
        --state-dir "/tmp/state-$1" >"/tmp/agent-$1.log" 2>&1 &
}
# aggregator_calibrates LOG: the aggregator (started before the agents, on the same broker) learns
# each node's beacon from its info, solves the calibration from what they hear of each other and
# publishes it retained. With two nodes each has one path: an offset each, from the powers they
# state, but not confident (two paths are needed), so nothing is applied, and the payload says why.
aggregator_calibrates() {
    # btvirt reports an advert only when advertising is enabled (as `advertise` works around):
    # the agents' own advertising sets (handle 0x50) are switched off and on twice a second, so
    # each node hears the other's beacon on and on, as a real controller reports it. Harness only.
    (while :; do
        for hci in hci0 hci1; do
            hcitool -i $hci cmd 0x08 0x0039 00 01 50 00 00 00 >/dev/null 2>&1
            hcitool -i $hci cmd 0x08 0x0039 01 01 50 00 00 00 >/dev/null 2>&1
        done
        sleep 0.5
    done) &
    REPEATER=$!
    until_true 240 grep -q 'presence/calibration .*"node-a":{"offset".*"node-b":{"offset"' "$1"
    expect "calibration: the aggregator publishes an offset for each node" "$1" 'presence/calibration .*"basis":"statedPower".*"nodes":\{"node-a":\{"offset":-?[0-9.]+,"power":-?[0-9.]+,.*"node-b":\{"offset":-?[0-9.]+,'
    expect "calibration: with one path each, neither is confident, and each says why" "$1" 'presence/calibration .*"node-a":\{[^}]*"pairs":1,[^}]*"confident":false,"reason":"1 path\(s\) heard both ways; 2 needed"\},"node-b":\{[^}]*"pairs":1,[^}]*"confident":false,"reason"'
    refute "calibration: no node beacon gets a location" "$1" "presence/locations/ibeacon-6da7a204"
    mosquitto_sub -h 127.0.0.1 -C 1 -W 10 -t presence/calibration >/tmp/calibration.retained 2>&1
    expect "calibration: retained, naming both nodes" /tmp/calibration.retained '"node-a":\{"offset".*"node-b":\{"offset"'
    sed 's/^/    calibration| /' /tmp/calibration.retained
    refute "calibration: neither node's beacon is named another site's (heard before its info, it is still its node's)" /tmp/calibration.retained '"kind":"outsider"'
    kill "$REPEATER" "$AGGREGATOR"
    wait "$AGGREGATOR" 2>/dev/null
    expect "calibration: the aggregator logs it" /tmp/aggregator.log "node calibration"
    expect "calibration: kept in the state directory" /tmp/aggregator-state/node-calibration.json '"node-a":\{"offset"'
}

# nodes_hear_each_other KIND: node-a (hci0) and node-b (hci1), each advertising its node beacon;
# each must publish a measurement of the other's, its id read from the other's info. node-b starts
# once node-a advertises and scans, so node-a hears node-b's beacon switched on even where the
# emulated controller reports an advert only when advertising is enabled.
nodes_hear_each_other() {
    log=/tmp/mqtt-nodes-$1.log
    mosquitto_sub -h 127.0.0.1 -v -t 'presence/#' >"$log" 2>&1 &
    SUB=$!
    if [ "$3" = aggregator ]; then
        mkdir -p /tmp/aggregator-state
        presence-aggregator run --broker mqtt://127.0.0.1:1883 --state-dir /tmp/aggregator-state --no-discovery \
            >/tmp/aggregator.log 2>&1 &
        AGGREGATOR=$!
    fi
    run_node node-a lab hci0
    AGENT_A=$!
    until_true 30 grep -q 'presence/nodes/node-a/info .*"state":"advertising"' "$log"
    run_node node-b hall hci1
    AGENT_B=$!
    until_true 30 grep -q 'presence/nodes/node-b/info .*"state":"advertising"' "$log"
    expect "$1: node-a's info names its node beacon, advertising" "$log" 'presence/nodes/node-a/info .*"nodeBeacon":\{"id":"ibeacon-6da7a204-168f-4087-a761-28738dae7c07-[0-9]+-[0-9]+","interval":1,"state":"advertising","measuredPower":-?[0-9]+'
    expect "$1: node-b's info names its node beacon, advertising" "$log" 'presence/nodes/node-b/info .*"nodeBeacon":\{"id":"ibeacon-6da7a204-[^"]*","interval":1,"state":"advertising"'
    beacon_a=$(node_beacon "$log" node-a)
    beacon_b=$(node_beacon "$log" node-b)
    until_true 40 grep -q "presence/beacons/$beacon_b/node-a .*\"rssi\"" "$log"
    expect "$1: node-a measures node-b's node beacon" "$log" "presence/beacons/$beacon_b/node-a .*\"rssi\":-60"
    if [ "$2" = both ]; then
        until_true 40 grep -q "presence/beacons/$beacon_a/node-b .*\"rssi\"" "$log"
        expect "$1: node-b measures node-a's node beacon" "$log" "presence/beacons/$beacon_a/node-b .*\"rssi\":-60"
    fi
    refute "$1: no node measures its own beacon" "$log" "presence/beacons/$beacon_a/node-a |presence/beacons/$beacon_b/node-b "
    [ "$3" = aggregator ] && aggregator_calibrates "$log"
    kill "$AGENT_A" "$AGENT_B"
    wait "$AGENT_A" 2>/dev/null
    wait "$AGENT_B" 2>/dev/null
    kill "$SUB"
    # Read once the agent has ended: its log reaches the file when its output buffer is flushed.
    expect "$1: the agent says it advertises, in the scan's command family" /tmp/agent-node-a.log "advertises the node beacon ibeacon-6da7a204-.* \($1\)"
}

echo "== socket path, a Bluetooth 5.x controller (btvirt -l2: hci0 scans, hci1 advertises)"
start_btvirt -l2
until_true 15 test -e /sys/class/bluetooth/hci1 || fail "btvirt made no controllers"
advertise hci1
sleep 3
hciconfig hci0 >/tmp/hci0.txt
expect "without bluetoothd the kernel powers a new controller off" /tmp/hci0.txt "DOWN"
presence-agent scan --source hci0 --json --duration 8 >/tmp/scan5.out 2>/tmp/scan5.err
expect "5.x: a down adapter is powered up (HCIDEVUP)" /tmp/scan5.err "hci0 was down; powered it up"
expect "5.x: the extended scan commands are used" /tmp/scan5.err "the controller scans \(extended\)"
expect "5.x: the iBeacon is decoded" /tmp/scan5.out "\"beacon\":\"$BEACON\""
expect "5.x: the report carries the preload's RSSI" /tmp/scan5.out '"rssi":-60'

echo "== errors that say what to do"
hciconfig hci0 up
agent_as_user --inh-caps=-all presence-agent scan --source hci0 --duration 3 >/tmp/eperm.out 2>/tmp/eperm.err
echo "exit $?" >>/tmp/eperm.err
expect "no CAP_NET_RAW: exit status 2" /tmp/eperm.err "^exit 2$"
expect "no CAP_NET_RAW: the error names the capability and the unit line" /tmp/eperm.err "Operation not permitted.*CAP_NET_RAW.*AmbientCapabilities=CAP_NET_RAW"
expect "no CAP_NET_RAW: the error names setcap" /tmp/eperm.err "setcap cap_net_raw"
agent_as_user --inh-caps=+net_raw --ambient-caps=+net_raw presence-agent scan --source hci0 --json --duration 6 >/tmp/raw.out 2>/tmp/raw.err
expect "CAP_NET_RAW alone is enough to scan" /tmp/raw.out "\"beacon\":\"$BEACON\""
hciconfig hci0 down
agent_as_user --inh-caps=+net_raw --ambient-caps=+net_raw presence-agent scan --source hci0 --duration 3 >/tmp/down.out 2>/tmp/down.err
echo "exit $?" >>/tmp/down.err
expect "down adapter, no CAP_NET_ADMIN: exit status 2" /tmp/down.err "^exit 2$"
expect "down adapter, no CAP_NET_ADMIN: the error names the capability and bluetoothctl power on" /tmp/down.err "adapter is down.*CAP_NET_ADMIN.*bluetoothctl power on"
for soft in /sys/class/bluetooth/hci0/rfkill*/soft; do echo 1 >"$soft"; done
presence-agent scan --source hci0 --duration 3 >/tmp/rfkill.out 2>/tmp/rfkill.err
expect "rfkill-blocked adapter: the error names rfkill unblock" /tmp/rfkill.err "rfkill unblock bluetooth"
for soft in /sys/class/bluetooth/hci0/rfkill*/soft; do echo 0 >"$soft"; done

echo "== the agent on hci0 publishing to a mosquitto in the VM"
printf 'user root\nlistener 1883 127.0.0.1\nallow_anonymous true\n' >/tmp/mosquitto.conf
mosquitto -c /tmp/mosquitto.conf >/tmp/mosquitto.log 2>&1 &
until_true 10 mosquitto_pub -h 127.0.0.1 -t presence/probe -m x 2>/dev/null || fail "mosquitto did not start"
mosquitto_pub -h 127.0.0.1 -r -q 1 -t presence/config/regions \
    -m '{"revision":1,"regions":[{"id":"office","uuid":"494e5445-4c4c-495f-524f-434b535f4857"}]}'
mosquitto_sub -h 127.0.0.1 -v -t 'presence/#' >/tmp/mqtt.log 2>&1 &
printf 'telemetryInterval: 2\n' >/tmp/agent.yaml
presence-agent run --config /tmp/agent.yaml --node vm --room lab --source hci0 --broker mqtt://127.0.0.1:1883 \
    --state-dir /tmp/state >/tmp/agent.log 2>&1 &
AGENT=$!
until_true 40 grep -q "regions/office/event.*\"event\":\"enter\"" /tmp/mqtt.log
expect "MQTT: the region is entered" /tmp/mqtt.log "presence/nodes/vm/regions/office/event .*\"event\":\"enter\".*\"beacon\":\"$BEACON\""
until_true 10 grep -q "presence/beacons/$BEACON/vm .*\"distance\"" /tmp/mqtt.log
expect "MQTT: a measurement with an RSSI and a distance" /tmp/mqtt.log "presence/beacons/$BEACON/vm .*\"rssi\":-60.*\"distance\":"
until_true 10 grep -q "presence/nodes/vm/telemetry .*\"radio\":\"scanning\"" /tmp/mqtt.log
expect "MQTT: telemetry says the radio scans" /tmp/mqtt.log "presence/nodes/vm/telemetry .*\"radio\":\"scanning\""

echo "== power off and on during a run (btmgmt power off, as bluetoothctl does)"
heard=$(count /tmp/agent.log "hearing advertisements again")
btmgmt --index 0 power off >/dev/null 2>&1
sleep 4
btmgmt --index 0 power on >/dev/null 2>&1
until_true 40 more_than /tmp/agent.log "hearing advertisements again" "$heard"
expect "power cycle: the stop is said with its cause" /tmp/agent.log "stopped scanning: .*(adapter is down|reset the controller)"
if more_than /tmp/agent.log "hearing advertisements again" "$heard"; then pass "power cycle: the agent hears the beacon again"; else fail "power cycle: not hearing again"; show /tmp/agent.log; fi

echo "== another program's discovery (btmgmt find -l: mgmt Start Discovery, as bluetoothctl scan on)"
heard=$(count /tmp/agent.log "hearing advertisements again")
# What bluetoothd does at start: LE on in the kernel's settings (else discovery is rejected, 0x0b).
btmgmt --index 0 le on >/tmp/find.log 2>&1
timeout 30 btmgmt --index 0 find -l >>/tmp/find.log 2>&1 >/tmp/find.log 2>&1
until_true 40 more_than /tmp/agent.log "hearing advertisements again" "$heard"
expect "discovery: its end is noticed" /tmp/agent.log "another program switched scanning off"
if more_than /tmp/agent.log "hearing advertisements again" "$heard"; then pass "discovery: the agent scans again by itself afterwards"; else fail "discovery: not hearing again"; show /tmp/agent.log; show /tmp/find.log 5; fi

echo "== unplug and replug (btvirt stopped and started again)"
heard=$(count /tmp/agent.log "hearing advertisements again")
stop_btvirt
until_true 15 grep -q "radio\":\"retrying" /tmp/mqtt.log
expect "unplug: telemetry says the radio is retrying" /tmp/mqtt.log "presence/nodes/vm/telemetry .*\"radio\":\"retrying\".*\"radioError\""
start_btvirt -l2
until_true 15 test -e /sys/class/bluetooth/hci1
advertise hci1
until_true 60 more_than /tmp/agent.log "hearing advertisements again" "$heard"
if more_than /tmp/agent.log "hearing advertisements again" "$heard"; then pass "replug: the agent hears the beacon again"; else fail "replug: not hearing again"; show /tmp/agent.log; fi
sleep 3
tail -n 1 /tmp/mqtt.log >/dev/null
grep "presence/nodes/vm/telemetry" /tmp/mqtt.log | tail -n 1 >/tmp/telemetry.last
expect "replug: telemetry counts the reopens" /tmp/telemetry.last "\"radio\":\"scanning\".*\"radioReopens\":[1-9]"
kill "$AGENT"
wait "$AGENT"
echo "exit $?" >>/tmp/agent.log
expect "the agent stops cleanly" /tmp/agent.log "^exit 0$"
stop_btvirt

echo "== two agents on two 5.x controllers hear each other's node beacons (btvirt -l2: extended advertising)"
start_btvirt -l2
until_true 15 test -e /sys/class/bluetooth/hci1
# A still node beacon's measurement goes out once a heartbeat (60 s by default), and the solve
# wants 30 per direction in its window: a heartbeat of 1 s gives them in half a minute.
printf 'telemetryInterval: 2\ntracking:\n  heartbeat: 1\n' >/tmp/agent-calibration.yaml
NODE_CONFIG=/tmp/agent-calibration.yaml nodes_hear_each_other extended both aggregator
stop_btvirt

echo "== two agents on two 4.x controllers advertise with the legacy commands (btvirt -L -l2)"
# btvirt's legacy controllers report an advert only when advertising is enabled: node-a hears
# node-b's beacon switched on; node-b, started after, cannot hear node-a's.
start_btvirt -L -l2
until_true 15 test -e /sys/class/bluetooth/hci1
nodes_hear_each_other legacy one
stop_btvirt

echo "== socket path, a legacy (4.x, LE only) controller (btvirt -L -l2)"
start_btvirt -L -l2
until_true 15 test -e /sys/class/bluetooth/hci1
advertise hci1
presence-agent scan --source hci0 --json --duration 8 >/tmp/scan4.out 2>/tmp/scan4.err
expect "4.x: the legacy scan commands are used" /tmp/scan4.err "the controller scans \(legacy\)"
expect "4.x: the iBeacon is decoded" /tmp/scan4.out "\"beacon\":\"$BEACON\""
stop_btvirt

echo "== reports without an RSSI (btvirt as it is: RSSI 127) are presence, not range"
start_btvirt_without_rssi -l2
until_true 15 test -e /sys/class/bluetooth/hci1
advertise hci1
mosquitto_sub -h 127.0.0.1 -v -t 'presence/#' >/tmp/mqtt127.log 2>&1 &
SUB=$!
presence-agent run --config /tmp/agent.yaml --node vm127 --room lab --source hci0 --broker mqtt://127.0.0.1:1883 \
    --state-dir /tmp/state127 >/tmp/agent127.log 2>&1 &
AGENT=$!
until_true 40 grep -q "presence/nodes/vm127/regions/office/event .*\"event\":\"enter\"" /tmp/mqtt127.log
expect "RSSI 127: the region is entered" /tmp/mqtt127.log "presence/nodes/vm127/regions/office/event .*\"event\":\"enter\".*\"beacon\":\"$BEACON\""
until_true 10 grep -q "presence/nodes/vm127/regions/office/ranging .*$BEACON" /tmp/mqtt127.log
expect "RSSI 127: ranged with proximity unknown" /tmp/mqtt127.log "presence/nodes/vm127/regions/office/ranging .*\"proximity\":\"unknown\""
refute "RSSI 127: no measurement (it would read as 'stopped hearing')" /tmp/mqtt127.log "presence/beacons/$BEACON/vm127 "
until_true 10 grep -q "presence/nodes/vm127/telemetry .*\"advertsWithoutRSSI\":[1-9]" /tmp/mqtt127.log
expect "RSSI 127: telemetry counts them" /tmp/mqtt127.log "presence/nodes/vm127/telemetry .*\"advertsWithoutRSSI\":[1-9]"
kill "$AGENT" "$SUB"
wait "$AGENT" 2>/dev/null
stop_btvirt

echo "== serial path: btvirt -s (H4 controllers on unix sockets) bridged to a pty with socat"
start_btvirt -s -l1
until_true 15 test -e /sys/class/bluetooth/hci0
advertise hci0
for server in le bredrle; do
    bridge tty-$server $server || fail "socat cannot reach /tmp/bt-server-$server"
    presence-agent scan --source uart:/tmp/tty-$server --json --duration 8 >/tmp/uart-$server.out 2>/tmp/uart-$server.err
    expect "serial ($server): the controller is set up, legacy scan commands (btvirt's servers are 4.x)" /tmp/uart-$server.err "the controller scans \(legacy\)"
    expect "serial ($server): the iBeacon is decoded" /tmp/uart-$server.out "\"beacon\":\"$BEACON\""
    kill $SOCAT 2>/dev/null
    wait $SOCAT 2>/dev/null
done
echo "== serial path: the line goes away and comes back"
bridge tty-replug le || fail "socat cannot reach /tmp/bt-server-le"
presence-agent scan --source uart:/tmp/tty-replug --json --duration 90 >/tmp/replug.out 2>/tmp/replug.err &
SCAN=$!
until_true 20 grep -q "$BEACON" /tmp/replug.out
kill $SOCAT
wait $SOCAT 2>/dev/null
until_true 10 grep -q "stopped scanning" /tmp/replug.err
bridge tty-replug le || fail "socat cannot reach /tmp/bt-server-le again"
until_true 40 grep -q "hearing advertisements again" /tmp/replug.err
expect "serial replug: scan says the line went away and that it retries" /tmp/replug.err "stopped scanning: .*(reopening|retrying) in [0-9]+ s"
expect "serial replug: set up again and hearing again" /tmp/replug.err "hearing advertisements again"
kill $SCAN $SOCAT 2>/dev/null
stop_btvirt

echo "== what the agent logged on hci0 (power cycle, discovery, unplug)"
grep -v "MQTT connect" /tmp/agent.log | sed 's/^/    agent| /'
echo "GUEST-DONE passed=$passed failed=$failed"
sync
poweroff -f
