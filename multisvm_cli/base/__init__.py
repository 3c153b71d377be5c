"""The base modules every layer may use: errors, readers, YAML loading, storage, hashing, parallel work and lazy imports. They import nothing else of multisvm."""
