"""The chassis: the chassis view (slots, cards, bridges), the card palette and the scene helpers."""
