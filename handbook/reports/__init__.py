"""What the build tells its readers and maintainers: the execution report, How this site is built,
What changed, and the drift report of a new release (failure messages are `execution.failures`)."""
