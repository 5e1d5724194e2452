from server.cli.main import main

raise SystemExit(main())
