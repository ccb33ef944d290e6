"""Prose that follows the edition: values quoted from outputs, and the guard that keeps
typed values out."""
