#ifndef BEACONPRESENCE_CYAML_SHIM_H
#define BEACONPRESENCE_CYAML_SHIM_H
// libyaml 0.2 (Debian libyaml-dev, pkg-config yaml-0.1): its event parser only; ConfigFile builds the tree.
#include <yaml.h>
#endif
