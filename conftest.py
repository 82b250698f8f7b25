"""Loads the library's pytest plugin for runs inside this repo before the package's `pytest11`
entry point is installed (scripts/bootstrap.sh installs it); the plugin is registered under its
module name either way, so it is never loaded twice. See pyiree_tf_support/pytest_plugin.py."""

pytest_plugins = ("pyiree_tf_support.pytest_plugin",)
