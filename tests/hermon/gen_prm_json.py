#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The prdma authors
"""Turn hermon-prm-layouts.json into a C table for the layout test."""
import json
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    out = ['/* generated from %s by gen_prm_json.py */' % src.split('/')[-1],
           '#include <stddef.h>', '#include "t_prm_json.h"', '']
    rows, sizes = [], []
    try:
        with open(src) as f:
            d = json.load(f)
    except OSError:
        d = {}
    for name, fields in d.items():
        if name.startswith('_'):
            continue
        short = name[len('hermonprm_'):-len('_st')]
        for fname, off, width in fields:
            rows.append('\t{ "%s", "%s", %d, %d },' % (short, fname, off, width))
        sizes.append('\t{ "%s", NULL, 0, %d },' % (short, d['_sizes_bits'][name]))
    out.append('const struct t_prm_json_field t_prm_json_fields[] = {')
    out += rows
    out.append('\t{ NULL, NULL, 0, 0 }\n};\n')
    out.append('const struct t_prm_json_field t_prm_json_sizes[] = {')
    out += sizes
    out.append('\t{ NULL, NULL, 0, 0 }\n};')
    with open(dst, 'w') as f:
        f.write('\n'.join(out) + '\n')


main()
