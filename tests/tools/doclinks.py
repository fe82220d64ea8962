#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the relative links of README.md and docs/*.md: every linked file
exists and every #anchor names a heading of its file (GitHub's slugs).
Usage: doclinks.py SRCDIR; prints each broken link, exits 1 if any."""
import os
import re
import sys


def slugs(path):
    out, fence = set(), False
    with open(path, encoding='utf-8') as f:
        for line in f.read().split('\n'):
            if line.startswith('```'):
                fence = not fence
            if not fence and re.match(r'^#+ ', line):
                t = line.lstrip('#').strip().lower()
                out.add(re.sub(r'[^\w\- ]', '', t).replace(' ', '-'))
    return out


def main():
    root = sys.argv[1]
    docs = os.path.join(root, 'docs')
    files = [os.path.join(root, 'README.md')] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    bad = 0
    for f in files:
        with open(f, encoding='utf-8') as fh:
            text = fh.read()
        for m in re.finditer(r'\]\(([^)\s]+)\)', text):
            link = m.group(1)
            if re.match(r'^[a-z]+:', link):
                continue
            path, _, anchor = link.partition('#')
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) \
                if path else f
            rel = os.path.relpath(f, root)
            if not os.path.exists(target):
                print(f'{rel}: {link}: no such file')
                bad += 1
            elif anchor and target.endswith('.md') and \
                    anchor not in slugs(target):
                print(f'{rel}: {link}: no such heading')
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
