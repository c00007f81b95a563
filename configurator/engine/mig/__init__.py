"""MIG: layouts, their validation and setup commands, enumeration and automatic placement.
"""
