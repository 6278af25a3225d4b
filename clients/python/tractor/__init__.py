"""tractor-rules-client: the Python client of the Tractor rules service (``tractor.rules``)."""
