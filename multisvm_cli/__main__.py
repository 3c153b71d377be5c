"""``python -m multisvm_cli`` does the same as ``multisvm``."""

from .cli.entry import main

if __name__ == "__main__":
    main()
