from shellgate.cli import main

raise SystemExit(main())
