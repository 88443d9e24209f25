"""``python -m worldinfo``."""

import sys

from worldinfo.cli import main

sys.exit(main())
