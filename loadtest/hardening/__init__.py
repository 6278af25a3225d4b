"""Evidence that the rules service holds: fuzzing, hostile inputs, faults and soak (make fuzz, make soak).

Nothing here is imported by the service; every tool drives a real server over a real channel.
"""
