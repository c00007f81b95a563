"""The service planner: size a fleet for a multi-tenant fine-tuning service. Pure Python, no Qt.

``plan_service(plan) -> PlanResult`` is the one entry point; ``load_plan(path)`` reads a plan file.
"""

from configurator.engine.planner.cancel import PlanCancelled
from configurator.engine.planner.plan import JobClass, NodeType, Plan
from configurator.engine.planner.planfile import load_plan, parse_plan, plan_to_yaml, save_plan
from configurator.engine.planner.result import PlanResult
from configurator.engine.planner.service import plan_service

__all__ = [
    "JobClass",
    "NodeType",
    "Plan",
    "PlanCancelled",
    "PlanResult",
    "load_plan",
    "parse_plan",
    "plan_service",
    "plan_to_yaml",
    "save_plan",
]
