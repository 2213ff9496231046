/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The prdma authors
 */

#ifndef T_CM_PCAP_H
#define T_CM_PCAP_H

/* Reads the CM MADs out of a classic pcap of RoCEv2 GSI datagrams. */

#include <stddef.h>
#include <stdint.h>

/*
 * Copy the 256-byte MAD of frame @frame (1-based, as Wireshark numbers
 * frames) of @path into @mad. Returns 0, -ENOENT when the file is absent,
 * -EINVAL when the frame is not a RoCEv2 UD datagram with a MAD.
 */
int t_pcap_mad(const char *path, unsigned int frame, uint8_t mad[256]);

#endif /* T_CM_PCAP_H */
