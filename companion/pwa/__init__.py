"""The installable app: versioned assets, the service worker and manifest, the engine and the
Pyodide runtime for the phone."""
