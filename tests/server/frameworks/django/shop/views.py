from django.http import JsonResponse

from shop.models import Order


def order_json(request, order_id):
    order = Order.objects.get(pk=order_id)
    # The ID as a string: it is above 2^53, where a JSON number loses digits
    # in JavaScript (and in every reader that parses numbers as doubles).
    return JsonResponse({"id": str(order.id), "note": order.note})
