#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
#
# The main job: install, reserve hugepages, build, and run the RDMA demo
# between two endpoints on the embedded in-memory loopback.
# Extra arguments go to the demo (after EAL's "--").

. "$(dirname "$0")/common.sh"

prdma_install
prdma_hugepages
prdma_build "$PRDMA_BUILD"
say "running: prdma-demo $PRDMA_EAL_ARGS -- $*"
exec "$PRDMA_BUILD/apps/prdma-demo/prdma-demo" $PRDMA_EAL_ARGS -- "$@"
