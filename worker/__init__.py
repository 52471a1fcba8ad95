"""The engine's edge in the phone: what the browser's Web Worker calls through Pyodide.

Kept apart from ``engine/`` so the rules stay pure standard library: this package holds the JSON
edge (`jsonio`) and the QR codes drawn on the phone (`qr`, with the bundled ``qrcode`` package).
"""
