from django.urls import path

from shop.views import order_json

urlpatterns = [path("orders/<int:order_id>", order_json)]
