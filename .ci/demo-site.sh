# The demo's site, shared by .ci/demo and .ci/home-assistant (sourced, not run): a private mosquitto
# on a free loopback port, the people's beacons, and the agents' and aggregator's configuration.
# The caller defines `work` (a temporary directory, mode 755) and `pids` (an array it ends at exit).

# One simulated node per room of the embedded demo building.
demo_nodes=(kitchen-1:kitchen living-1:living office-1:office bedroom-1:bedroom)
demo_uuid=fda50693-a4e2-4fb1-afcf-c6eb07647825
# Carol carries a phone instead of a beacon: known by its key (IRK), which only the nodes get; the
# aggregator names her by the key's canonical id. (A demo key, public in SimulationScenario.demo.)
demo_carol_key=4a1d7c0e9b3f52a86e17d04c3b9f2a65

# Starts mosquitto in $work; sets `port` and `broker` (mqtt://127.0.0.1:PORT). With `demo_listen`
# set to ADDR:PORT (.ci/demo --listen), it also listens there, for a Home Assistant on another machine.
demo_start_broker() {
    port=""
    # A free loopback port: one that nothing answers on.
    for _ in $(seq 1 50); do
        local candidate=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port="$candidate"; break; fi
    done
    [ -n "$port" ] || { echo "no free loopback port found" >&2; return 1; }
    # Started as root, mosquitto drops to user mosquitto, which must be able to read its configuration.
    cat >"$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
CONF
    if [ -n "${demo_listen:-}" ]; then
        # A second listener for other machines; anonymous too (allow_anonymous is global here).
        echo "listener ${demo_listen##*:} ${demo_listen%:*}" >>"$work/mosquitto.conf"
    fi
    chmod 644 "$work/mosquitto.conf"
    mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 1 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || { echo "mosquitto did not start:" >&2; cat "$work/mosquitto.log" >&2; return 1; }
        sleep 0.1
    done
    broker="mqtt://127.0.0.1:$port"
}

# The people's beacons, with aliases for the topics and names for the display: pushed to the nodes
# (retained config/beacons: without it a node measures only beacons it is told about) and given to
# the aggregator. The simulated radio loses 2.7 dB per doubling of distance (n = 2.7), not the open
# hall's 1.5 the agents default to: nodes and aggregator are told, so the distances shown are right.
# Writes $work/agent.yaml and $work/aggregator.yaml.
demo_configure() {
    mosquitto_pub -h 127.0.0.1 -p "$port" -q 1 -r -t presence/config/beacons -m "{\"revision\":1,\"beacons\":[
  {\"beacon\":\"ibeacon-$demo_uuid-1-1\",\"id\":\"alice\",\"name\":\"Alice\"},
  {\"beacon\":\"ibeacon-$demo_uuid-1-2\",\"id\":\"bob\",\"name\":\"Bob\"},
  {\"irk\":\"$demo_carol_key\",\"id\":\"carol\",\"name\":\"Carol\"}]}"
    cat >"$work/agent.yaml" <<YAML
source: simulate
tracking:
  pathLossExponent: 2.7
YAML
    cat >"$work/aggregator.yaml" <<YAML
broker: $broker
beacons:
  - { beacon: ibeacon-$demo_uuid-1-1, id: alice, name: Alice }
  - { beacon: ibeacon-$demo_uuid-1-2, id: bob, name: Bob }
  - { beacon: irk-2178bafcf505, id: carol, name: Carol, awayTimeout: ${DEMO_PHONE_AWAY_TIMEOUT:-600} }
decision:
  pathLossExponent: 2.7
  # The four agents start together on a possibly busy machine, a second or two apart; deciding 3 s
  # (not 1 s) after a person is first heard lets every node speak first, so the first rooms are
  # right. In a deployment the nodes run long before a beacon appears.
  settleTime: 3
# The demo's house has two floors: the location says which, and Home Assistant gets a Floor sensor.
floors:
  ground: [kitchen, living]
  upstairs: [bedroom, office]
YAML
}

# The command lines of the aggregator and of one agent (node id, room), as the demo runs them.
demo_aggregator_command() {
    printf '%s\n' "$bin/presence-aggregator" run --config "$work/aggregator.yaml"
}
demo_agent_command() {
    printf '%s\n' "$bin/presence-agent" run --config "$work/agent.yaml" --node "$1" --room "$2" \
        --broker "$broker" --state-dir "$work/state-$1"
}
