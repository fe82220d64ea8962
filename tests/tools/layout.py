#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Hold ofan's source tree to its layers (docs/architecture.md, "The pieces").

    tests/tools/layout.py [--check includes,cycles,functions,repeats] [ROOT]

Reads the production sources (everything but tests/) and prints one line
per violation, file:line first, then exits 1 if there was any:

  includes   a file includes only headers of its own folder and of the
             folders its layer may use (LAYERS below): no arrow upward, and
             no program's header (a header in a program folder) in a
             library;
  cycles     no circle between the files of one folder: a module is a
             basename (x.c, x.h and x_priv.h) and uses another when one of
             its files includes the other's header;
  functions  no function longer than MAX_FUNCTION_LINES, from the line of
             its name to its closing brace;
  repeats    no block of more than MAX_REPEAT_LINES lines (blank lines and
             indentation aside, comments included) twice in the C sources.

Without --check every check runs.
"""
import argparse
import collections
import os
import re
import sys

MAX_FUNCTION_LINES = 120
MAX_REPEAT_LINES = 20

# Folder -> the folders its files may include besides their own.  A
# program folder's headers are its own: no library lists one.
LIBS = {
    'common': [],
    'workload': ['common'],
    'switch/policy': ['common'],
    'host/transport': ['common', 'workload'],
    'fabric/model': ['common', 'workload', 'switch/policy', 'host/transport'],
    'port': ['common'],
    'switch/engine': ['common', 'switch/policy'],
    'host/engine': ['common', 'workload', 'host/transport'],
    'fabric/emulator': ['common', 'workload', 'switch/policy',
                        'host/transport', 'fabric/model', 'switch/engine',
                        'host/engine'],
}
PROGRAMS = {
    'switch': ['common', 'port', 'switch/policy', 'switch/engine'],
    'host': ['common', 'port', 'workload', 'host/transport', 'host/engine'],
    'fabric': ['common', 'workload', 'switch/policy', 'host/transport',
               'fabric/model', 'switch/engine', 'host/engine',
               'fabric/emulator'],
    'testbed/gen': ['common', 'workload', 'switch/policy', 'host/transport',
                    'fabric/model'],
    'tools/cmgen': ['common', 'workload'],
    'tools/chakra': ['common', 'workload'],
    'tools/pcapgen': ['common'],
    'tools/htsim-plan': ['common'],
}
LAYERS = dict(LIBS, **PROGRAMS)
# Headers a build generates, and the folder they belong to.
GENERATED = {'ofan_vcs.h': 'common', 'chakra_et.pb-c.h': 'workload'}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(root):
    for folder in LAYERS:
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            if name.endswith(('.c', '.h')):
                yield folder, os.path.join(folder, name)


def headers(root):
    where = dict(GENERATED)
    for folder, path in sources(root):
        if path.endswith('.h'):
            name = os.path.basename(path)
            if name in where and where[name] != folder:
                raise SystemExit('layout.py: %s in both %s and %s'
                                 % (name, where[name], folder))
            where[name] = folder
    return where


def includes(root, path):
    with open(os.path.join(root, path), encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield no, m.group(1)


def check_includes(root, where):
    bad = []
    for folder, path in sources(root):
        for no, inc in includes(root, path):
            name = os.path.basename(inc)
            dest = where.get(name)
            if dest is None:
                bad.append('%s:%d: includes "%s", a header of no folder'
                           % (path, no, inc))
            elif dest == folder:
                continue
            elif dest in PROGRAMS:
                bad.append('%s:%d: includes %s, a header of the program in %s/'
                           % (path, no, name, dest))
            elif dest not in LAYERS[folder]:
                bad.append('%s:%d: includes %s from %s/, which %s/ may not use'
                           % (path, no, name, dest, folder))
    return bad


def module(path):
    base = os.path.splitext(os.path.basename(path))[0]
    return base[:-5] if base.endswith('_priv') else base


def check_cycles(root, where):
    bad = []
    by_folder = collections.defaultdict(lambda: collections.defaultdict(set))
    for folder, path in sources(root):
        m = module(path)
        uses = by_folder[folder][m]
        for _, inc in includes(root, path):
            name = os.path.basename(inc)
            if where.get(name) == folder and module(name) != m:
                uses.add(module(name))
    for folder in sorted(by_folder):
        graph = by_folder[folder]
        state = {}
        stack = []

        def visit(m):
            state[m] = 1
            stack.append(m)
            for n in sorted(graph.get(m, ())):
                if state.get(n) == 1:
                    ring = stack[stack.index(n):] + [n]
                    bad.append('%s/: a circle between files: %s'
                               % (folder, ' -> '.join(ring)))
                elif n not in state:
                    visit(n)
            stack.pop()
            state[m] = 2

        for m in sorted(graph):
            if m not in state:
                visit(m)
    return bad


FUNC_START = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def check_functions(root):
    bad = []
    for folder, path in sources(root):
        if not path.endswith('.c'):
            continue
        with open(os.path.join(root, path), encoding='utf-8') as f:
            lines = f.read().split('\n')
        name, start, body = None, None, False
        for i, line in enumerate(lines):
            m = FUNC_START.match(line)
            if m and not body:
                name, start = m.group(1), i	# a definition or a prototype
            elif line.startswith('{') and name is not None and not body:
                body = True
            elif line.startswith('}') and body:
                n = i - start + 1
                if n > MAX_FUNCTION_LINES:
                    bad.append('%s:%d: %s() is %d lines (at most %d)'
                               % (path, start + 1, name, n,
                                  MAX_FUNCTION_LINES))
                name, body = None, False
    return bad


def check_repeats(root):
    bad = []
    seen = {}
    n = MAX_REPEAT_LINES + 1
    for folder, path in sources(root):
        if not path.endswith('.c'):
            continue
        with open(os.path.join(root, path), encoding='utf-8') as f:
            raw = f.read().split('\n')
        text = [(no + 1, ' '.join(l.split())) for no, l in enumerate(raw)
                if l.strip() and l.strip() not in ('{', '}', '};', '*/')]
        reported_until = -1
        for i in range(len(text) - n + 1):
            key = '\n'.join(t for _, t in text[i:i + n])
            first = seen.get(key)
            if first is None:
                seen[key] = (path, text[i][0])
            elif first != (path, text[i][0]) and i > reported_until:
                bad.append('%s:%d: %d lines repeat %s:%d'
                           % (path, text[i][0], n, first[0], first[1]))
                reported_until = i + n
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', default='includes,cycles,functions,repeats')
    ap.add_argument('root', nargs='?',
                    default=os.path.join(os.path.dirname(__file__), '..', '..'))
    a = ap.parse_args()
    checks = a.check.split(',')
    unknown = set(checks) - {'includes', 'cycles', 'functions', 'repeats'}
    if unknown:
        ap.error('--check: %s: not one of includes, cycles, functions, '
                 'repeats' % ', '.join(sorted(unknown)))
    where = headers(a.root)
    bad = []
    if 'includes' in checks:
        bad += check_includes(a.root, where)
    if 'cycles' in checks:
        bad += check_cycles(a.root, where)
    if 'functions' in checks:
        bad += check_functions(a.root)
    if 'repeats' in checks:
        bad += check_repeats(a.root)
    for line in bad:
        print(line)
    print('layout: %d problems (%s)' % (len(bad), ', '.join(checks)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
