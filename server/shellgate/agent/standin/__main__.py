import sys

from shellgate.agent.standin import main

sys.exit(main())
