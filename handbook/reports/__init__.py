"""What the build tells its readers and maintainers: failure messages and the execution
report, How this site is built, What changed, and the drift report of a new release."""
