"""Saved models: train, evaluate, predict, and a trained model's metadata."""
