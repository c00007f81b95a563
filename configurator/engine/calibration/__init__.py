"""The band from published peak-memory runs (the runs are data in specs/runs/).
"""
