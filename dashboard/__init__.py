"""The Streamlit dashboard: pages over SQL aggregates of the store (start it with `rejudge dashboard`)."""

__all__ = ["DB_ENV", "CASSETTES_ENV", "PRICES_ENV"]

#: ``rejudge dashboard`` hands the app its store URL in this environment variable (a URL can
#: hold a password; argv is visible to every local user, the environment is not)
DB_ENV = "REJUDGE_DASHBOARD_DB"
#: and the cassettes folder (optional) in this one
CASSETTES_ENV = "REJUDGE_DASHBOARD_CASSETTES"
#: and the price table the pages price usage with (optional; without it no cost is shown)
PRICES_ENV = "REJUDGE_DASHBOARD_PRICES"
