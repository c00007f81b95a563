"""Memory per card for one job: model states, activations, MoE and RL additions, the load phase.
"""
