"""Torque adapter."""
