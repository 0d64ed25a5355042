"""`privacy-audit` as installed by pip: the same command as the Rust binary."""

import sys

from . import _native


def main() -> None:
    sys.exit(_native.main(["privacy-audit", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
