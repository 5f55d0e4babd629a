#!/usr/bin/env python3
"""The widgets/ layering rules (docs/architecture.md), checked from the #include lines.

1. A file under widgets/ includes only widgets/ and core/ headers (core/runtime/ included):
   never one from app/, the layer above, and never a name that is in neither.
2. No widgets/ files need each other: the include graph between widgets units has no cycle.
   A unit is a header and the sources that implement it (clustercanvas.h, clustercanvas.cpp,
   clustercanvas_edits.cpp, ...: a source belongs to the header whose stem is the longest
   prefix of its own, in its folder).
3. The rooms (widgets/'s subfolders) do not need each other either: the include graph between
   folders has no cycle, so each room can be read with only the rooms below it.

Usage: scripts/check-layers.py [ROOT]   (default: the repository root). Exit 1 and one line per
finding, naming the file, the line and the include, when a rule is broken; 0 otherwise.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_EXT = ('.h', '.cpp')


def widget_files(root):
    out = []
    for d, _, names in os.walk(os.path.join(root, 'widgets')):
        out += [os.path.join(d, n) for n in names if n.endswith(SOURCE_EXT)]
    return sorted(out)


def includes(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def inside(path, folder):
    return os.path.commonpath([os.path.realpath(path), os.path.realpath(folder)]) == os.path.realpath(folder)


def resolve(root, including, name):
    """Where a quoted include lands: the including file's folder first, then the include
    directories widgets/ and core/ (core/runtime/ headers are named runtime/...)."""
    for base in (os.path.dirname(including), os.path.join(root, 'widgets'), os.path.join(root, 'core')):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return candidate
    return None


def unit_of(path, headers):
    """The header stem a file belongs to (see rule 2), as a path relative to widgets/."""
    folder, name = os.path.split(path)
    stem = os.path.splitext(name)[0]
    best = stem
    if name.endswith('.cpp'):
        owners = [h for h in headers.get(folder, ()) if stem == h or stem.startswith(h + '_')]
        if owners:
            best = max(owners, key=len)
    return os.path.join(folder, best)


def cycles(edges):
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def report_cycles(kind, edges, where):
    problems = []
    for component in cycles(edges):
        members = set(component)
        problems.append(f'{kind} that need each other: {", ".join(component)}')
        for a in component:
            for b in sorted(edges[a] & members):
                problems.extend(f'  {line}' for line in where[(a, b)])
    return problems


def check(root):
    widgets = os.path.join(root, 'widgets')
    app = os.path.join(root, 'app')
    files = widget_files(root)
    headers = {}
    for f in files:
        if f.endswith('.h'):
            folder, name = os.path.split(os.path.relpath(f, widgets))
            headers.setdefault(folder, []).append(os.path.splitext(name)[0])
    problems = []
    unit_edges, unit_where = {}, {}
    room_edges, room_where = {}, {}
    for f in files:
        rel = os.path.relpath(f, root)
        unit = unit_of(os.path.relpath(f, widgets), headers)
        unit_edges.setdefault(unit, set())
        room = os.path.dirname(unit) or '.'
        room_edges.setdefault(room, set())
        for number, name in includes(f):
            target = resolve(root, f, name)
            at = f'{rel}:{number}: #include "{name}"'
            if target is None:
                above = [c for c in (os.path.normpath(os.path.join(os.path.dirname(f), name)),
                                     os.path.join(app, name), os.path.join(app, 'cli', name))
                         if os.path.isfile(c) and inside(c, app)]
                why = 'includes an app/ header' if above else 'includes a header in neither widgets/ nor core/'
                problems.append(f'{at}: {why}')
                continue
            if inside(target, app):
                problems.append(f'{at}: includes an app/ header')
                continue
            if not inside(target, widgets):
                continue
            other = unit_of(os.path.relpath(target, widgets), headers)
            if other != unit:
                unit_edges[unit].add(other)
                unit_where.setdefault((unit, other), []).append(at)
            other_room = os.path.dirname(other) or '.'
            if other_room != room:
                room_edges[room].add(other_room)
                room_where.setdefault((room, other_room), []).append(at)
    problems += report_cycles('widgets files', unit_edges, unit_where)
    problems += report_cycles('widgets/ folders', room_edges, room_where)
    return problems, len(files)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    if not os.path.isdir(os.path.join(root, 'widgets')):
        print(f'check-layers: {root} has no widgets/ folder', file=sys.stderr)
        return 2
    problems, count = check(root)
    if problems:
        print('\n'.join(problems), file=sys.stderr)
        print('check-layers: widgets/ may include widgets/ and core/ headers only, and no files or '
              'folders of widgets/ may need each other (docs/architecture.md)', file=sys.stderr)
        return 1
    print(f'check-layers: {count} widgets/ files: no app/ include, no cycle between files or folders')
    return 0


if __name__ == '__main__':
    sys.exit(main())
