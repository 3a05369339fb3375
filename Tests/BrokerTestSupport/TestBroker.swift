// A real mosquitto on a free loopback port for tests (issue 3 fills this in).
