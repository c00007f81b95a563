from configurator.cli import main

raise SystemExit(main())
