#ifndef BEACONPRESENCE_CBLUETOOTH_SHIM_H
#define BEACONPRESENCE_CBLUETOOTH_SHIM_H
// BlueZ's headers need this order (PITFALLS.md): string.h, sys/socket.h, bluetooth.h, hci.h, hci_lib.h.
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

// The few things Swift cannot import or should not spell out: the socket filter, as small
// functions over the header's own static inline helpers and constants (SOL_HCI, HCI_FILTER).

/// Reads the socket's current filter into *saved, so it can be put back on exit. 0 or -1 (errno).
static inline int bp_hci_get_filter(int dd, struct hci_filter *saved) {
    socklen_t len = sizeof(*saved);
    return getsockopt(dd, SOL_HCI, HCI_FILTER, saved, &len);
}

/// Passes HCI events (Command Complete, Command Status, Hardware Error and LE Meta, which carries
/// the advertising reports) and the commands other programs send to the adapter: the kernel copies
/// those to every raw socket bound to it (never the sender's own), which is how the agent sees
/// another program reset the controller or switch scanning off.
static inline int bp_hci_set_scan_filter(int dd) {
    struct hci_filter filter;
    hci_filter_clear(&filter);
    hci_filter_set_ptype(HCI_EVENT_PKT, &filter);
    hci_filter_set_ptype(HCI_COMMAND_PKT, &filter);
    hci_filter_set_event(EVT_CMD_COMPLETE, &filter);
    hci_filter_set_event(EVT_CMD_STATUS, &filter);
    hci_filter_set_event(EVT_HARDWARE_ERROR, &filter);
    hci_filter_set_event(EVT_LE_META_EVENT, &filter);
    return setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, sizeof(filter));
}

/// Puts back a filter saved by bp_hci_get_filter. 0 or -1 (errno).
static inline int bp_hci_set_filter(int dd, const struct hci_filter *filter) {
    return setsockopt(dd, SOL_HCI, HCI_FILTER, filter, sizeof(*filter));
}

/// Whether the adapter is up (HCIGETDEVINFO, which needs no capability): 1, 0, or -1 (errno).
static inline int bp_hci_dev_is_up(int dd, int dev_id) {
    struct hci_dev_info info;
    memset(&info, 0, sizeof(info));
    info.dev_id = (uint16_t)dev_id;
    if (ioctl(dd, HCIGETDEVINFO, (void *)&info) < 0) return -1;
    return hci_test_bit(HCI_UP, &info.flags) ? 1 : 0;
}

/// Powers the adapter up, as `hciconfig hciN up` does (HCIDEVUP: needs CAP_NET_ADMIN). 0 or -1 (errno).
static inline int bp_hci_dev_up(int dd, int dev_id) {
    return ioctl(dd, HCIDEVUP, dev_id);
}
#endif
