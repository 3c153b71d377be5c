"""multisvm against scikit-learn, side by side (the code is ``multisvm_cli.bench``).

    python benchmarks/compare_sklearn.py --quick     # same as: multisvm bench --quick
    python benchmarks/compare_sklearn.py --help
"""

import sys

from multisvm_cli.bench import main

if __name__ == "__main__":
    sys.exit(main())
