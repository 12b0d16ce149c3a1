"""The shipped graphs (YAML data). This file lets importlib.resources find the folder."""
