"""The event-sourced domain and its store: event types, the decider, the event store on
PostgreSQL, subscriptions and projections."""
