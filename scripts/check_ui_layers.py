#!/usr/bin/env python3
"""Checks the include graph of ui/ against its layer order (docs/ARCHITECTURE.md, "ui/ layers").

Each file of ui/ belongs to one layer: by its folder, or, at the top of ui/, by its name. A file
may include files of its own folder and files of lower layers; an include of a ui/ file in a
higher layer, or in another folder of the same layer (features do not reach into each other), is
an error. Includes that are not ui/ files (core's headers, Qt, the standard library) are not
checked here. Exit 0 when the graph keeps the order, 1 with one line per offending include.
"""
import os
import re
import sys

# Lowest first. A name ending in "/" is a folder of ui/; other names are files at the top of ui/
# (without their extension).
LAYERS = [
    ["bridge/"],                                 # torch meets Qt: compute calls, the training worker
    ["math/", "plot_style", "error_report", "window_view", "family_names"],  # formulas, looks, names
    ["help/", "export/"],                        # view notes; plot and run-report exports
    ["explorer/", "training/"],                  # the two features, which never include each other
    ["undo/"],                                   # the explorer's parameter undo
    ["session/"],                                # the whole state: explorer, training, tab
    ["lessons/"],                                # steps applied as session states
    ["presentation/"],                           # folds the setup areas, captions the lesson
    ["menus/"],                                  # the menu bar and what its entries do
    ["main_window"],                             # widgets and layout
    ["app_shell"],                               # the composition root
    ["command_line_start"],                      # poslab's command line applied to one shell
    ["screenshot"],                              # the same command line, then shot offscreen
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit_of(rel):
    """The layer entry of a path relative to ui/ ("explorer/", "main_window"), or None."""
    if "/" in rel:
        return rel.split("/", 1)[0] + "/"
    return os.path.splitext(rel)[0]


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui")
    root = os.path.normpath(root)
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    problems = []
    files = 0
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            files += 1
            unit = unit_of(rel)
            if unit not in layer:
                problems.append(f"ui/{rel}: not in any layer of scripts/check_ui_layers.py")
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for match in INCLUDE.finditer(text):
                inc = match.group(1)
                if not os.path.isfile(os.path.join(root, inc)):
                    continue  # not a ui/ file (core, Qt)
                target = unit_of(inc)
                if target == unit or target not in layer:
                    continue
                line = text.count("\n", 0, match.start()) + 1
                if layer[target] > layer[unit]:
                    problems.append(f"ui/{rel}:{line}: includes {inc}, a higher layer "
                                    f"({target} above {unit})")
                elif layer[target] == layer[unit]:
                    problems.append(f"ui/{rel}:{line}: includes {inc}, a peer of {unit} "
                                    f"in the same layer")
    for p in problems:
        print(p)
    print(f"ui layers: {files} files, {len(problems)} includes against the order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
