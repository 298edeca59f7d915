"""The writer's review of each checked claim against its quote (seed 000: support is the
writer's judgement, presented to them, never inferred by the app)."""
