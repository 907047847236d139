"""The Streamlit dashboard: pages over SQL aggregates of the store (start it with `rejudge dashboard`)."""
