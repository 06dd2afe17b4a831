from orbench.cli import main

raise SystemExit(main())
