"""The check pipeline: plan a check, run the engines over files and programs
(reusing stored results through `signalint.cache`), merge, cluster,
render.
"""
