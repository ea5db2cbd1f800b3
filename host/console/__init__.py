"""The debugging console (`turtleboard console`)."""
