"""The dashboard's pages (file-based st.Page scripts run by dashboard/app.py)."""
