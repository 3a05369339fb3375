#ifndef BEACONPRESENCE_CMOSQUITTO_SHIM_H
#define BEACONPRESENCE_CMOSQUITTO_SHIM_H
// mqtt_protocol.h carries MQTT_PROP_* and the protocol-version constants (PITFALLS.md).
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
