#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""layout.py's checks on small trees made for them: a clean tree passes,
and each kind of problem is found, with its file and line, by its check
alone.  Without this, a check that stopped finding anything would pass
the real tree too.

    tests/tools/test_layout.py
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layout  # noqa: E402

FAILED = []


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w', encoding='utf-8') as f:
        f.write(text)


def tree(extra):
    """A tree with every layer's folder, a clean file in two of them, and
    extra ({path: text}) on top."""
    root = tempfile.mkdtemp(prefix='ofan_t_layout.')
    for folder in layout.LAYERS:
        os.makedirs(os.path.join(root, folder), exist_ok=True)
    write(root, 'common/ofan_a.h', '#ifndef A\n#define A\nint a(void);\n#endif\n')
    write(root, 'common/ofan_a.c', '#include "ofan_a.h"\n\nint\na(void)\n{\n\treturn 1;\n}\n')
    write(root, 'workload/hs_w.c', '#include "ofan_a.h"\n\nint\nw(void)\n{\n\treturn a();\n}\n')
    for path, text in extra.items():
        write(root, path, text)
    return root


def run(root):
    where = layout.headers(root)
    return {
        'includes': layout.check_includes(root, where),
        'cycles': layout.check_cycles(root, where),
        'functions': layout.check_functions(root),
        'repeats': layout.check_repeats(root),
    }


def expect(what, extra, check, needle):
    """extra makes exactly one problem, found by check, naming needle."""
    root = tree(extra)
    try:
        found = run(root)
    finally:
        shutil.rmtree(root)
    others = {k: v for k, v in found.items() if k != check and v}
    if len(found[check]) == 1 and needle in found[check][0] and not others:
        print('ok: %s: %s' % (what, found[check][0]))
    else:
        FAILED.append(what)
        print('FAIL: %s: expected one %s problem naming %r, got %r'
              % (what, check, needle, found))


def body(n, name):
    """int name(void), n lines from its name to its closing brace, each
    statement its own (no repeat)."""
    return ('int\n%s(void)\n{\n' % name +
            ''.join('\t%s_%d++;\n' % (name, i) for i in range(n - 3)) +
            '}\n')


def block(tag):
    return ''.join('\tcall_%s_%d(x);\n' % (tag, i) for i in range(21))


def main():
    root = tree({})
    try:
        found = run(root)
    finally:
        shutil.rmtree(root)
    if any(found.values()):
        FAILED.append('clean tree')
        print('FAIL: clean tree: %r' % found)
    else:
        print('ok: clean tree: no problem')

    expect('an arrow upward', {
        'common/ofan_b.c': '#include "hs_w.h"\n',
        'workload/hs_w.h': '#define W 1\n'}, 'includes',
        'common/ofan_b.c:1: includes hs_w.h from workload/')
    expect('a program header in a library', {
        'host/hs_app.h': '#define APP 1\n',
        'host/engine/hs_e.c': '#include "hs_app.h"\n'}, 'includes',
        'host/engine/hs_e.c:1: includes hs_app.h, a header of the program')
    expect('a header of no folder', {
        'workload/hs_x.c': '\n#include "nowhere.h"\n'}, 'includes',
        'workload/hs_x.c:2: includes "nowhere.h"')
    expect('a circle in a folder', {
        'workload/hs_p.h': '#include "hs_q.h"\n',
        'workload/hs_q.h': '#define Q 1\n',
        'workload/hs_q.c': '#include "hs_r_priv.h"\n',
        'workload/hs_r_priv.h': '#include "hs_p.h"\n'}, 'cycles',
        'workload/: a circle between files: hs_p -> hs_q -> hs_r -> hs_p')
    expect('a function of 121 lines', {
        'fabric/emulator/fab_x.c': '\n' + body(120, 'ok') + '\n' +
        body(121, 'long')}, 'functions',
        'fabric/emulator/fab_x.c:125: long() is 121 lines (at most 120)')
    expect('21 lines twice', {
        'switch/policy/lb_x.c': 'void\nf(int x)\n{\n' + block('a') + '}\n',
        'switch/engine/sw_x.c': 'void\ng(int x)\n{\n' + block('a') +
        '}\n'}, 'repeats',
        'switch/engine/sw_x.c:4: 21 lines repeat switch/policy/lb_x.c:4')
    root = tree({'switch/policy/lb_x.c': 'void\nf(int x)\n{\n' + block('a')
                 + '}\n',
                 'switch/engine/sw_x.c': 'void\ng(int x)\n{\n' + block('b')
                 + '}\n'})
    try:
        found = run(root)
    finally:
        shutil.rmtree(root)
    if found['repeats']:
        FAILED.append('different blocks')
        print('FAIL: different blocks: %r' % found['repeats'])
    else:
        print('ok: 21 different lines are no repeat')
    print('test_layout: %d failed' % len(FAILED))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
