# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Cases of the matrix that are known not to pass yet, with the reason.

Such a case still runs and its result is printed in full; its failure does
not fail its group, and a pass says loudly that the entry is to be removed.
Each entry is a gap of prdma (or of this rig) recorded in doc/interop.md, not
a failure to hide: keep the list short and the reasons exact.
"""

import re

GAPS = [
    (r"^k2p\.rc\.write_bw\.4096\.dropin$",
     "rxe's ib_write_bw (MTU 1024) against the verbs drop-in as responder: the capture "
     "shows only rxe's WRITE FIRST/MIDDLE/LAST and its resends (completer_retry_err "
     "about 770), no frame from prdma; it fails the same way at 44ecab8, whose CI passed "
     "on 2026-12-01, against the guest built on 2026-12-02, so it came with the rig "
     "(guest packages), not with prdma's code; cause not found yet (doc/interop.md)"),
]


def reason(name):
    """The recorded reason if the case @name is a known gap, else None."""
    for pattern, why in GAPS:
        if re.search(pattern, name):
            return why
    return None
