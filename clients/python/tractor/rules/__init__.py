"""The rules service's contract (``tractor.rules.v1``, generated) and
its client (``tractor.rules.client``).
"""
