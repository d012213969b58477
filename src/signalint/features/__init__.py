"""What front ends offer beside a check: deltas between checks, live
diagnostics, the engines' own fixes and fix transactions, session history
and loop detection, the queries a retained check answers.
"""
