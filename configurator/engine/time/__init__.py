"""Step time: compute per op (steptime/), communication and NCCL bus bandwidth.
"""
