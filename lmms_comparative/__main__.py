import sys

from lmms_comparative.cli import main

sys.exit(main())
