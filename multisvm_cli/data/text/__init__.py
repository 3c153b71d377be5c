"""Text datasets: documents from archives and folders, their features, the features cache and the fitted pipeline a saved model keeps."""
