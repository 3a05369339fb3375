#ifndef BEACONPRESENCE_CBLUETOOTH_SHIM_H
#define BEACONPRESENCE_CBLUETOOTH_SHIM_H
// BlueZ's headers need this order (PITFALLS.md): string.h, sys/socket.h, bluetooth.h, hci.h, hci_lib.h.
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
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

/// Passes only HCI events, and of those only Command Complete, Command Status and LE Meta
/// (advertising reports). Without CAP_NET_RAW the kernel masks LE Meta out silently.
static inline int bp_hci_set_scan_filter(int dd) {
    struct hci_filter filter;
    hci_filter_clear(&filter);
    hci_filter_set_ptype(HCI_EVENT_PKT, &filter);
    hci_filter_set_event(EVT_CMD_COMPLETE, &filter);
    hci_filter_set_event(EVT_CMD_STATUS, &filter);
    hci_filter_set_event(EVT_LE_META_EVENT, &filter);
    return setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, sizeof(filter));
}

/// Puts back a filter saved by bp_hci_get_filter. 0 or -1 (errno).
static inline int bp_hci_set_filter(int dd, const struct hci_filter *filter) {
    return setsockopt(dd, SOL_HCI, HCI_FILTER, filter, sizeof(*filter));
}
#endif
