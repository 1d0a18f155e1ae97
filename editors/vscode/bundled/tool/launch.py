"""Start the pypto-lsp bundled in this extension, with whatever Python runs this file.

The extension runs `<python> bundled/tool/launch.py`: the bundle (../libs: pypto_core,
pypto_lsp, pygls, lsprotocol, attrs, cattrs, and libcst in the platform packages) goes first
on sys.path, so an older pygls or pypto-lsp installed for that interpreter cannot shadow it,
while anything the bundle lacks (libcst in the universal package) may still come from there.
Only the standard library is used before the bundle is on the path.
"""

import sys
from pathlib import Path

MINIMUM = (3, 10)
LIBS = Path(__file__).resolve().parent.parent / "libs"


def main() -> int:
    if sys.version_info < MINIMUM:
        sys.stderr.write(
            f"pypto-lsp needs Python {MINIMUM[0]}.{MINIMUM[1]} or newer; "
            f"{sys.executable} is {sys.version.split()[0]}\n"
        )
        return 2
    if not (LIBS / "pypto_lsp").is_dir():
        sys.stderr.write(f"the bundled server is missing from {LIBS}: reinstall the extension\n")
        return 2
    # sys.path[0] is this file's folder, which holds nothing to import
    sys.path[0] = str(LIBS)
    from pypto_lsp.__main__ import main as serve

    return serve(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
