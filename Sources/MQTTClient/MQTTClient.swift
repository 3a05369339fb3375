// The MQTT client lands here (issue 3).
