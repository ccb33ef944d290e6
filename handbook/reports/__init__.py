"""What the build tells its readers and maintainers: the execution report, How this site is built,
What changed, and the drift report of a new release (the messages that name a failing block's place
are not here: `execution.failures`)."""
